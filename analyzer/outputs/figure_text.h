/*
 * figure_text.h - an issue's figure (a detail or impact value) as a person
 * reads it: the text report rounds what JSON and SARIF keep exact (the HTML
 * report's script rounds the same way, report_html.js fmtVal).
 */
#ifndef FIGURE_TEXT_H
#define FIGURE_TEXT_H

#include <jansson.h>

#include "issue_detail.h"

/*
 * v as text, allocated (NULL when out of memory): an integer as it is; any
 * other number to three significant digits (0.9675246878050735 -> 0.968,
 * 0.29999999999999999 -> 0.3), from 100 up to the unit (1234.56 -> 1235);
 * a string, true, false, null, array or object as compact JSON.
 */
char *figure_text(const json_t *v);

/* A detail's or impact's value as figure_text writes it as JSON. */
char *figure_value_text(const struct issue_value *v);

#endif /* FIGURE_TEXT_H */
