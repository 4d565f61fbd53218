"""Runs a composite GitHub Action's steps as the runner would, for the tests.

usage: python3 gh_action.py ACTION.yml SCENARIO.json WORKDIR

SCENARIO holds "inputs" (the caller's with:, its expressions evaluated
here), "github" (the github
context the expressions read: job, repository, actor, event_name, event...),
"strategy" ({"job-index": N}) and "env" (more environment). Each step's if:
is evaluated (success() unless it says otherwise); a run: step is executed
with bash -eo pipefail, its env: evaluated, with the variables GitHub sets
(GITHUB_ACTION_PATH, GITHUB_OUTPUT per step, GITHUB_STEP_SUMMARY, GITHUB_PATH,
GITHUB_ENV, GITHUB_JOB, GITHUB_REPOSITORY, GITHUB_ACTOR, GITHUB_EVENT_NAME,
GITHUB_WORKSPACE, RUNNER_TEMP); a uses: step is not run but recorded with
its with: evaluated. Prints one JSON object: status (the job's: the last
failed step's exit status, else 0), outputs (the action's outputs: block
evaluated), uses ([{uses, with}] of the steps that would run), steps
([{name, ran, status}]). Each step's output is in WORKDIR/step<N>.out.

The expression language is the part actions use: contexts inputs, github,
steps, strategy, env; literals 'string', true, false, null, numbers; the
operators ! == != && || and parentheses; always(), success(), failure().
A missing property is null, which an interpolation writes as ''.
"""
import json
import os
import re
import subprocess
import sys

import yaml

TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||!|\(|\)|,)|"
                   r"(?P<num>-?\d+(?:\.\d+)?)|(?P<name>[A-Za-z_][\w-]*(?:\.[\w-]+|\[\d+\])*))")


def tokens(text):
    pos, out = 0, []
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError("cannot read expression %r at %d" % (text, pos))
        out.append((m.lastgroup, m.group(m.lastgroup)))
        pos = m.end()
    return out


class Evaluator:
    def __init__(self, contexts, failed):
        self.contexts = contexts
        self.failed = failed

    def value(self, path):
        if path in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[path]
        cur = self.contexts
        for part in re.findall(r"[\w-]+", path):
            cur = cur.get(part) if isinstance(cur, dict) else None
        return cur

    def eval(self, text):
        self.toks, self.i = tokens(text), 0
        v = self.or_()
        if self.i != len(self.toks):
            raise ValueError("trailing tokens in %r" % text)
        return v

    def peek(self):
        return self.toks[self.i][1] if self.i < len(self.toks) else None

    def or_(self):
        v = self.and_()
        while self.peek() == "||":
            self.i += 1
            r = self.and_()
            v = v if truthy(v) else r
        return v

    def and_(self):
        v = self.cmp()
        while self.peek() == "&&":
            self.i += 1
            r = self.cmp()
            v = r if truthy(v) else v
        return v

    def cmp(self):
        v = self.unary()
        while self.peek() in ("==", "!="):
            op = self.toks[self.i][1]
            self.i += 1
            r = self.unary()
            eq = loose(v) == loose(r)
            v = eq if op == "==" else not eq
        return v

    def unary(self):
        if self.peek() == "!":
            self.i += 1
            return not truthy(self.unary())
        kind, tok = self.toks[self.i]
        self.i += 1
        if tok == "(":
            v = self.or_()
            self.i += 1
            return v
        if kind == "str":
            return tok[1:-1].replace("''", "'")
        if kind == "num":
            return float(tok)
        if self.peek() == "(":
            self.i += 2  # the functions used here take no argument
            return {"always": True, "success": not self.failed, "failure": self.failed,
                    "cancelled": False}[tok]
        return self.value(tok)

    def interpolate(self, text):
        if not isinstance(text, str):
            return text
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: as_string(self.eval(m.group(1))), text)


def truthy(v):
    return v not in (None, False, 0, "")


def loose(v):
    """GitHub compares a string and a boolean or number as numbers; a string
    with another string case-insensitively."""
    if isinstance(v, str):
        return v.lower()
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


def as_string(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def read_outputs(path):
    """GITHUB_OUTPUT's lines: NAME=VALUE, or NAME<<DELIM ... DELIM."""
    out, lines, i = {}, open(path).read().split("\n"), 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            body = []
            while i < len(lines) and lines[i] != delim:
                body.append(lines[i])
                i += 1
            i += 1
            out[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
    return out


def main():
    action_file, scenario_file, work = sys.argv[1:4]
    action = yaml.safe_load(open(action_file))
    sc = json.load(open(scenario_file))
    inputs = {k: v.get("default", "") for k, v in action.get("inputs", {}).items()}
    github = dict(sc.get("github", {}))
    contexts = {"github": github, "strategy": sc.get("strategy", {}), "steps": {},
                "env": sc.get("env", {}), "inputs": inputs}
    ev = Evaluator(contexts, False)
    # a default may read the github context (ioscope-${{ github.job }})
    for k in inputs:
        inputs[k] = as_string(ev.interpolate(inputs[k]))
    # the caller's with: is evaluated in the caller's job (strategy, matrix)
    inputs.update({k: as_string(ev.interpolate(as_string(v)))
                   for k, v in sc.get("inputs", {}).items()})
    base_env = dict(os.environ)
    base_env.update(sc.get("env", {}))
    base_env.update({
        "GITHUB_ACTION_PATH": os.path.dirname(os.path.abspath(action_file)),
        "GITHUB_STEP_SUMMARY": os.path.join(work, "summary.md"),
        "GITHUB_PATH": os.path.join(work, "gh_path"),
        "GITHUB_ENV": os.path.join(work, "gh_env"),
        "GITHUB_JOB": as_string(github.get("job")),
        "GITHUB_REPOSITORY": as_string(github.get("repository")),
        "GITHUB_ACTOR": as_string(github.get("actor")),
        "GITHUB_EVENT_NAME": as_string(github.get("event_name")),
        "GITHUB_WORKSPACE": os.getcwd(),
        "RUNNER_TEMP": work,
    })
    status, report = 0, {"uses": [], "steps": []}
    for n, step in enumerate(action["runs"]["steps"]):
        ev.failed = status != 0
        cond = step.get("if", "success()")
        cond = cond if isinstance(cond, str) else as_string(cond)
        cond = re.sub(r"^\$\{\{(.*)\}\}$", r"\1", cond.strip())
        ran = truthy(ev.eval(cond))
        entry = {"name": step.get("name", step.get("uses", "")), "ran": ran, "status": None}
        report["steps"].append(entry)
        if not ran:
            continue
        if "uses" in step:
            report["uses"].append({"uses": step["uses"],
                                   "with": {k: as_string(ev.interpolate(v))
                                            for k, v in step.get("with", {}).items()}})
            continue
        out_file = os.path.join(work, "gh_output.%d" % n)
        open(out_file, "w").close()
        env = dict(base_env, GITHUB_OUTPUT=out_file)
        env.update({k: as_string(ev.interpolate(v)) for k, v in step.get("env", {}).items()})
        with open(os.path.join(work, "step%d.out" % n), "w") as out:
            rc = subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                                  ev.interpolate(step["run"])], env=env, stdout=out,
                                 stderr=subprocess.STDOUT)
        entry["status"] = rc
        if rc:
            status = rc
        if step.get("id"):
            contexts["steps"][step["id"]] = {"outputs": read_outputs(out_file),
                                             "outcome": "failure" if rc else "success"}
    ev.failed = status != 0
    report["status"] = status
    report["inputs"] = inputs
    report["outputs"] = {k: as_string(ev.interpolate(v.get("value", "")))
                         for k, v in action.get("outputs", {}).items()}
    print(json.dumps(report))


main()
