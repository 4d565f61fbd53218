#include "report.h"
int report_html(FILE *f, const struct report *r, const json_t *issues) { (void)r; (void)issues; fputs("x", f); return 0; }
