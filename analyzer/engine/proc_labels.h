/*
 * proc_labels.h - the labels of each recorded process (iorecord --label,
 * IORECORD_LABELS: a label record per process), so that an issue carries
 * the labels of the trace it came from when several traces, made with
 * different labels, are analysed together (`ioanalyze DIR`).
 */
#ifndef PROC_LABELS_H
#define PROC_LABELS_H

#include <stdint.h>

#include "issue_detail.h"

struct proc_labels;

struct proc_labels *proc_labels_create(void);
void proc_labels_free(struct proc_labels *pl);

/* A label record of process pid; the first value of a key wins. Invalid
   labels, and more than IOT_LABEL_MAX_COUNT, are dropped. */
void proc_labels_add(struct proc_labels *pl, int32_t pid, const char *key, const char *value);

/*
 * The labels of pid's issues (borrowed, string values, empty when none):
 * pid's own; for a process without label records, the labels every
 * labelled process had when they all had the same, else none.
 */
const struct rule_detail *proc_labels_of(struct proc_labels *pl, int32_t pid);

/* The labels of the input as a whole: the first process's that had any
   (empty when none); what an input with no issue says of its labels. */
const struct rule_detail *proc_labels_first(const struct proc_labels *pl);

#endif /* PROC_LABELS_H */
