/*
 * Checkpoint actions: the command a job registered, run by /bin/sh -c in a
 * process group of its own, with a clean environment (PATH and the
 * CHECKPOINT_ variables; request data is never spliced into the command),
 * stdin from /dev/null, stdout and stderr captured, and a deadline after
 * which the whole group is killed.  checkpoint-runner(8) says what an
 * action receives and how its end is recorded.
 */
#ifndef ACTION_H
#define ACTION_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ACTION_MAX_ENV 8 /* CHECKPOINT_ variables */
#define ACTION_TAIL 2048 /* bytes of stderr kept */
#define ACTION_LINE 4096 /* bytes of the last stdout line kept */
#define ACTION_POLLFDS 2 /* stdout, stderr */

struct action_spec {
	const char *command;
	const char *env[ACTION_MAX_ENV + 1]; /* "NAME=value", NULL-ended */
	int64_t timeout_ms;
};

enum action_status {
	ACTION_OK, /* exit status 0 */
	ACTION_FAILED, /* another exit status, or killed by a signal */
	ACTION_TIMEOUT, /* still running at its deadline: killed */
	ACTION_ERROR /* could not be started */
};

struct action_result {
	enum action_status status;
	int exit_code; /* ACTION_FAILED by exit */
	int signal; /* ACTION_FAILED by a signal */
	char last_line[ACTION_LINE]; /* last non-empty stdout line */
	char err_tail[ACTION_TAIL + 1]; /* end of stderr */
};

/*
 * What a command printed, kept as it arrives in chunks of any size: the
 * last non-blank stdout line (the checkpoint's location) and the end of
 * stderr (the failure's text).  Apart from struct action so that it can
 * be fed and checked without processes (tests/fuzz/fuzz-output.c).
 */
struct action_output {
	size_t linelen;
	char line[ACTION_LINE]; /* stdout line being read */
	char last[ACTION_LINE]; /* last complete non-empty one */
	size_t taillen;
	char tail[2 * ACTION_TAIL]; /* end of stderr */
};

void action_output_stdout(struct action_output *, const char *, size_t);
void action_output_stderr(struct action_output *, const char *, size_t);
void action_output_result(const struct action_output *, struct action_result *);

struct action;

void action_wake_on_exit(void);
int action_poll(struct pollfd *, size_t, int timeout_ms);
int action_start(const struct action_spec *, struct action **);
pid_t action_pid(const struct action *);
/*
 * 1 when an action's watchdog shares the runner's memory (a clone); 0
 * when it is a fork, under valgrind or a sanitizer, which cannot follow
 * such a clone.
 */
int action_watchdog_shares(void);
size_t action_pollfds(const struct action *, struct pollfd *, size_t max);
int action_timeout(const struct action *, int64_t now_ms);
int action_step(struct action *, int64_t now_ms);
void action_result(const struct action *, struct action_result *);
void action_kill(struct action *);
void action_free(struct action *);
int action_run(const struct action_spec *, struct action_result *);
int64_t action_now_ms(void);

#endif /* ACTION_H */
