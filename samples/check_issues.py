#!/usr/bin/env python3
"""Mask the fields of ioanalyze issues that change from run to run, and
compare a sample's issues with its expected file.

    check_issues.py mask    ISSUES.json OUTDIR            masked issues on stdout
    check_issues.py compare ISSUES.json OUTDIR EXPECTED   exit 0 when equal,
                                                          1 with a diff otherwise

OUTDIR is the directory the sample wrote its files in; it becomes "$OUT" in
paths, messages and the strings of detail (metadata_storm's example path) so
the expected files do not depend on where the test ran.

What is masked and why:
  pid, tid, time, cost      differ on every run
  stack, frames             addresses differ and inlining depends on the
                            compiler; kept as "<stack>" when one of its
                            frames is in the sample's own executable (the
                            open was made by the program, not by libc or the
                            recorder), as "<stack without PROCESS>" when
                            none is, "" when there is no stack;
                            frames as "<frames>", [] when there are none;
                            detail.open_sites' stacks as "<stack>" (their
                            sessions are kept); open_stack and open_frames
                            (the open's, where the harmful calls are made
                            elsewhere) as stack and frames
  fingerprint               a digest that includes the path; kept as
                            "<hex>" when it looks like one
  detail.*_us/_ms/_ns       measured timings
  detail.*pid/*tid          process and thread ids
  durations in messages     "31.2 ms" becomes "<time>"
  time shares               detail.*_share, and "97% of its I/O time" in
                            messages (sync_storm): ratios of timings
  impact.time_ms, impact.io_share
                            measured times and their share; the impact's
                            excess_* and handles are counts and stay
  severity                  made from the times where they decide; an
                            expected issue is never "low", which the
                            default output leaves out
  exe                       the executable's directory (the build tree):
                            "*/NAME"
  group                     a digest of the stack and path; kept as
                            "<group N>", N counting the distinct groups
                            in the sorted issues, so that which issues
                            share a group is compared
Everything else (rule, type, path, op, buffer, opSize, opType, size, repeat,
thread, process, counts in detail) must match exactly. Issues are compared as
a set (sorted by type, path, message): their time order is a run-time fact.
"""
import difflib
import json
import os
import re
import sys

VARYING = ("pid", "tid", "time", "cost", "severity")
VARYING_IMPACT = ("time_ms", "io_share")
VARYING_DETAIL = re.compile(r"_(us|ms|ns|share)$|(^|_)(pid|tid)$")
TIME_SHARE = re.compile(r"\d+% of its I/O time")
DURATION = re.compile(r"\d+(?:\.\d+)?\s*(?:ms|us|\u00b5s|ns)\b")
HEX = re.compile(r"[0-9a-f]{8,}")


def replace_dir(text, outdirs):
    for d in outdirs:
        text = text.replace(d, "$OUT")
    return text


def mask_stack(stack, process, frames):
    """Whether a frame is in the sample's executable: from the symbolized
    frames' modules, or from the text of frames ("function+0xOFF (module)",
    "module+0xOFF") when there are none."""
    if not stack:
        return ""
    if frames:
        mine = any(os.path.basename(f.get("module") or "") == process for f in frames)
    else:
        own = re.compile(r"(^|\(|/)" + re.escape(process) + r"(\+0x[0-9a-fA-F]+$|\)$)")
        mine = any(own.search(frame) for frame in stack.split("\n"))
    return "<stack>" if mine else "<stack without %s>" % process


def mask_issue(issue, outdirs):
    out = dict(issue)
    for key in VARYING:
        if key in out:
            out[key] = "*"
    if "stack" in out:
        out["stack"] = mask_stack(out["stack"], out.get("process", ""), out.get("frames"))
    if isinstance(out.get("exe"), str):
        # where the build tree is varies; which program ran does not
        out["exe"] = "*/" + os.path.basename(out["exe"])
    if "frames" in out:
        out["frames"] = "<frames>" if out["frames"] else []
    if "open_stack" in out:
        out["open_stack"] = mask_stack(out["open_stack"], out.get("process", ""),
                                       out.get("open_frames"))
    if "open_frames" in out:
        out["open_frames"] = "<frames>" if out["open_frames"] else []
    if isinstance(out.get("fingerprint"), str) and HEX.fullmatch(out["fingerprint"]):
        out["fingerprint"] = "<hex>"
    for key in ("path", "message"):
        if isinstance(out.get(key), str):
            out[key] = replace_dir(out[key], outdirs)
    if isinstance(out.get("message"), str):
        out["message"] = DURATION.sub("<time>", out["message"])
        out["message"] = TIME_SHARE.sub("<share> of its I/O time", out["message"])
    if isinstance(out.get("impact"), dict):
        out["impact"] = {k: "*" if k in VARYING_IMPACT else v for k, v in out["impact"].items()}
    if isinstance(out.get("detail"), dict):
        out["detail"] = {k: ("*" if VARYING_DETAIL.search(k) else
                             replace_dir(v, outdirs) if isinstance(v, str) else v)
                         for k, v in out["detail"].items()}
        if isinstance(out["detail"].get("open_sites"), list):
            out["detail"]["open_sites"] = [dict(site, stack="<stack>" if site.get("stack") else "")
                                           for site in out["detail"]["open_sites"]]
    return out


def masked(issues_path, outdir):
    with open(issues_path, encoding="utf-8") as f:
        issues = json.load(f)
    if not isinstance(issues, list):
        raise ValueError("%s: expected a JSON array of issues" % issues_path)
    # The directory as given and as the kernel reports it (symlinks resolved).
    outdirs = sorted({outdir.rstrip("/"), os.path.realpath(outdir)}, key=len, reverse=True)
    result = [mask_issue(i, outdirs) for i in issues]
    result.sort(key=lambda i: (i.get("type", 0), i.get("path", ""), i.get("message", "")))
    groups = {}
    for issue in result:
        if isinstance(issue.get("group"), str):
            issue["group"] = "<group %d>" % groups.setdefault(issue["group"], len(groups) + 1)
    return result


def dumps(issues):
    return json.dumps(issues, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv):
    if len(argv) == 4 and argv[1] == "mask":
        sys.stdout.write(dumps(masked(argv[2], argv[3])))
        return 0
    if len(argv) == 5 and argv[1] == "compare":
        got = dumps(masked(argv[2], argv[3]))
        with open(argv[4], encoding="utf-8") as f:
            want = dumps(json.load(f))
        if got == want:
            return 0
        sys.stdout.writelines(difflib.unified_diff(
            want.splitlines(True), got.splitlines(True), argv[4], "recorded"))
        return 1
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (OSError, ValueError) as e:
        sys.stderr.write("check_issues.py: %s\n" % e)
        sys.exit(2)
