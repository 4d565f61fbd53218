# parts.mk - the parts of ioscope, declared once: each is a folder, the
# parts it may use (include from and call into), and the headers it
# publishes to them. The Makefile builds each part with its own folder and
# its uses' folders on the include path; tests/check_parts.py checks every
# include and every call between object files against this table, and that
# no files of one part call each other round in a circle.
# docs/architecture.md draws it.

PARTS := common formats inputs rules engine outputs cli rec_shared preload kernel launcher

# helpers every part may use: each header is public
common.dir      := common
common.uses     :=
common.public   := *

# the trace format: codec, reader, writer, JSONL events; enc_io.h is the
# inline record encoder the recorder's hot path compiles in; syscalls.h the
# syscall catalogue the strace importer and the kernel path both expand
formats.dir     := formats
formats.uses    := common
formats.public  := iotrace.h enc_io.h syscalls.h

# every INPUT as one time-ordered stream of events: native traces, JSONL,
# strace logs, directories of them
inputs.dir      := inputs
inputs.uses     := formats common
inputs.public   := input.h

# the rules, written against the plugin interface: rule.h and the helpers
# it publishes (installed beside it); registry.h is the host's side
rules.dir       := rules
rules.uses      := common
rules.public    := rule.h registry.h

# sessions, figures and issues from events
engine.dir      := analyzer/engine
engine.uses     := rules formats common
engine.public   := engine.h issue.h issue_rec.h issue_detail.h config.h symbolize.h profile.h

# reports, SARIF, the CI fingerprints and diff, dumps and their filters
outputs.dir     := analyzer/outputs
outputs.uses    := engine rules formats common
outputs.public  := report.h ci.h output_format.h dump_filter.h dump_top.h scope.h

# ioanalyze's commands and options
cli.dir         := analyzer/cli
cli.uses        := outputs engine inputs rules formats common
cli.public      :=

# what the preload library and the launcher both link: the shared segment,
# trace frames, the judge of what the preload can enter, the owner rule
# for a trace's output, the clock
rec_shared.dir    := recorder/shared
rec_shared.uses   := formats common
rec_shared.public := segment.h frame.h exejudge.h outrule.h clock.h

# libiorecord.so
preload.dir     := recorder/preload
preload.uses    := rec_shared formats common
preload.public  :=

# the kernel capture path: a BPF program (capture.bpf.c, built only when
# clang, bpftool and libbpf are there) and the conversion of its records
# into the trace; linked into iorecord
kernel.dir      := recorder/kernel
kernel.uses     := rec_shared formats common
kernel.public   := kcapture.h kconvert.h

# iorecord and its collector
launcher.dir    := recorder/launcher
launcher.uses   := kernel rec_shared formats common
launcher.public :=

# Headers published to plugins with rule.h (make install).
rules.installs  := rules/rule.h common/hash.h common/grow.h common/hmap.h
# The headers of rules' own its files may include beyond those: the host's
# side, and per_file.h, the built-in rules' per-file tables, not installed
# (its layout is no part of the plugin ABI; rules/TEMPLATE.md).
rules.own       := registry.h per_file.h
