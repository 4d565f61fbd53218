/*
 * rec_tz: the time calls that have glibc check the time zone file while TZ
 * is unset (tzset, localtime, mktime, timelocal, ctime), N times each,
 * after localtime_r, which reads the file the first time and checks nothing
 * after. Prints what the conversions gave, so that a recorded run's output
 * can be compared with a plain one's.
 * Usage: rec_tz N
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    const time_t when = 1700000000;
    long n = argc == 2 ? atol(argv[1]) : 0, sum = 0;
    struct tm tm;
    char *text = NULL;

    if (n <= 0) {
        fprintf(stderr, "usage: rec_tz N\n");
        return 2;
    }
    if (!localtime_r(&when, &tm))
        return 99;
    for (long i = 0; i < n; i++) {
        struct tm copy = tm;

        tzset();
        sum += localtime(&when)->tm_hour;
        sum += (long)(mktime(&copy) - when);
        copy = tm;
        sum += (long)(timelocal(&copy) - when);
        text = ctime(&when);
    }
    printf("%ld %s", sum, text ? text : "-\n");
    return 0;
}
