/* An issue's figure as a person reads it (figure_text.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "figure_text.h"

char *figure_text(const json_t *v)
{
    char *s;

    if (!json_is_real(v))
        return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (asprintf(&s, fabs(json_real_value(v)) >= 100 ? "%.0f" : "%.3g", json_real_value(v)) < 0)
        return NULL;
    return s;
}

char *figure_value_text(const struct issue_value *v)
{
    json_t *j = issue_value_to_json(v);
    char *s = j ? figure_text(j) : NULL;

    json_decref(j);
    return s;
}
