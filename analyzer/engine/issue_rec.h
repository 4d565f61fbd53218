/*
 * issue_rec.h - one issue as a typed record: what the engine reports and
 * every output writes (docs/analyzer.md, "Issues", has the keys' meanings).
 * The engine makes it once per finding (issue.c), each member as the JSON
 * issue holds it (strings UTF-8, the detail's values of JSON's types), so
 * that it equals the record its own JSON parses back into. An issue file
 * is parsed into the same record (diff, --baseline), and
 * issue_to_json() writes the record as the JSON issue, its keys in the
 * order the JSON format has them. Outputs read members, never keys.
 *
 * The members that an issue file may lack carry a bit in has (ISSUE_HAS_*):
 * an issue of an older ioanalyze without "severity" or "group" is shown as
 * such and written back without them. An issue file that the record cannot
 * write back byte for byte (keys of a newer ioanalyze, another order, a
 * value of another type) keeps what was read in raw, which the JSON writer
 * writes as it was; its members are still filled as far as they parse.
 */
#ifndef ISSUE_REC_H
#define ISSUE_REC_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "issue_detail.h"

/* One stack frame (symbolize.h's sym_frame, as the issue shows it). */
struct issue_frame {
    char *function, *file, *module, *build_id;  /* NULL: null */
    int64_t line;            /* 0: null */
    uint64_t offset;
    int has_offset;          /* 0: offset is null */
    int inlined;
};

struct issue_frames {
    struct issue_frame *v;
    size_t n;
};

/* impact (docs/analyzer.md, "Impact and severity"): the members has names */
enum {
    ISSUE_IMPACT_TIME = 1,        /* time_ms; time_known 0: null (no durations) */
    ISSUE_IMPACT_MODEL = 2,
    ISSUE_IMPACT_SHARE = 4,
    ISSUE_IMPACT_EXCESS_BYTES = 8,
    ISSUE_IMPACT_EXCESS_SYNCS = 16,
    ISSUE_IMPACT_EXCESS_OPENS = 32,
    ISSUE_IMPACT_EXCESS_CALLS = 64,
    ISSUE_IMPACT_HANDLES = 128
};

struct issue_impact {
    unsigned has;            /* ISSUE_IMPACT_* */
    int time_known;
    double time_ms, model_ms, io_share;
    int64_t excess_bytes, excess_syncs, excess_opens, excess_calls, handles;
};

/* members an issue file may lack */
enum {
    ISSUE_HAS_PATH_HEX = 1,
    ISSUE_HAS_FRAMES = 2,
    ISSUE_HAS_FIX = 4,
    ISSUE_HAS_OPEN_SITE = 8,      /* open_stack and open_frames */
    ISSUE_HAS_IMPACT = 16,
    ISSUE_HAS_SEVERITY = 32,
    ISSUE_HAS_LABELS = 64,
    ISSUE_HAS_GROUP = 128,
    ISSUE_HAS_EXE = 256,
    ISSUE_HAS_HINT = 512
};

struct issue {
    /* Matrix's keys */
    int type;
    char *process;
    int64_t time;            /* ms since the epoch */
    char *path;
    int64_t size, op, buffer, cost;
    int op_type;
    int64_t op_size;
    char *thread;
    char *stack;             /* "" when none */
    int64_t repeat;
    /* ioscope's */
    char *rule;
    int32_t pid, tid;
    char *fingerprint;       /* 16 hex digits; NULL: none (matches nothing) */
    char *message;
    struct rule_detail *detail;   /* never NULL in a made or parsed issue */
    char *path_hex;          /* a path that is not UTF-8, its bytes in hex */
    struct issue_frames frames;
    char *fix;
    char *open_stack;        /* the open's stack when it is not stack */
    struct issue_frames open_frames;
    struct issue_impact impact;
    int severity;            /* enum issue_severity; ISSUE_MEDIUM when has lacks it */
    struct rule_detail *labels;   /* string values */
    char *group;             /* 8 hex digits; NULL without */
    char *exe;               /* the executable its process ran; NULL without */
    unsigned has;            /* ISSUE_HAS_* */
    json_t *raw;             /* see above; NULL for an issue the record writes */
    /* what shows the frames its stack lacks: a runtime's flags (once per
       process, on its first issue); NULL without */
    char *hint;
};

/* A list of issues, in order. */
struct issue_list {
    struct issue **v;
    size_t n, cap;
};

/* Frees fr's frames and leaves it empty. */
void issue_frames_release(struct issue_frames *fr);
void issue_free(struct issue *is);
/* Parses one JSON issue; NULL when j is not an object or out of memory. */
struct issue *issue_from_json(const json_t *j);
/* The issue as JSON (a new reference, NULL out of memory). */
json_t *issue_to_json(const struct issue *is);

/* The list of an array of JSON issues (what is not an object is left
   out); 0, or -1 out of memory. list starts empty. */
int issue_list_from_json(struct issue_list *list, const json_t *a);
/* The list as a JSON array (a new reference). */
json_t *issue_list_to_json(const struct issue_list *list);
/* Appends is (the list owns it); -1 out of memory (is freed). */
int issue_list_add(struct issue_list *list, struct issue *is);
/* Frees the issues and the array; the list is empty again. */
void issue_list_release(struct issue_list *list);

/* The occurrences the issue stands for (detail.occurrences, 1 without). */
int64_t issue_occurrences(const struct issue *is);

/* One figure of an impact: its key and value as the JSON issue has them. */
struct issue_figure {
    const char *key;
    struct issue_value v;    /* a double, an integer, or null (time_ms unknown) */
};
#define ISSUE_IMPACT_NFIGURES 8
/* The figures im has, in the JSON's order, into out (ISSUE_IMPACT_NFIGURES
   of room); how many. The values own nothing. */
size_t issue_impact_figures(const struct issue_impact *im, struct issue_figure *out);

#endif /* ISSUE_REC_H */
