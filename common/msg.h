/*
 * msg.h - the one way the programs (ioanalyze, iorecord) talk to the user
 * about errors: "PROG: message" on stderr, one line. Library code never
 * calls these (it returns errors in an errbuf); the recorder inside a traced
 * program never does either (recorder/ has its own, signal-safe warnings).
 */
#ifndef IOT_MSG_H
#define IOT_MSG_H

/* The program name every message starts with ("ioanalyze"). */
void iot_msg_prog(const char *name);

/*
 * fn is called before each message is written (NULL: nothing), so that a
 * line the program keeps redrawing on the terminal (ioanalyze's progress:
 * analyzer/cli/progress.h) is erased first rather than run into.
 */
void iot_msg_before(void (*fn)(void));

/*
 * While suffix is set (not NULL), every error line ends with it: the option
 * parser sets "; see 'PROG CMD --help'" while a command's check of a value
 * runs, so that the check's one line points to the help as every usage
 * error does (common/opt_parse.h).
 */
void iot_msg_error_suffix(const char *suffix);

/*
 * While fn is set (not NULL), every error and warning is handed to fn
 * instead of being written on stderr: text is the message without the
 * "PROG: " and "warning: " prefixes (and without the error suffix), error
 * says which it is. `ioanalyze analyze --each` files each input's messages
 * in that input's result, so that one input's failure is not another's.
 */
void iot_msg_sink(void (*fn)(void *arg, int error, const char *text), void *arg);

/* "PROG: <fmt>\n" on stderr; returns -1, so `return iot_error(...)` reads well. */
int iot_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same for a condition the program goes on after ("PROG: warning: ..."). */
void iot_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* IOT_MSG_H */
