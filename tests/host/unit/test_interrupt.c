/*
 * test_interrupt: a caught SIGINT/SIGTERM/SIGHUP is remembered and stops
 * every child at once, and a waiting read() sees EINTR (interrupt.h).
 */
#include "base/interrupt.h"
#include "base/proc.h"
#include "unit.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

UNIT_TEST(nothing_caught_before_a_signal)
{
	interrupt_catch();
	CHECK_INT(interrupt_caught(), 0);
}

UNIT_TEST(a_signal_kills_the_children_and_is_remembered)
{
	const char *argv[] = { "sleep", "30", NULL };
	struct error err;
	struct proc p;

	interrupt_catch();
	proc_init(&p, argv);
	CHECK_INT(proc_start(&p, &err), 0);
	raise(SIGTERM);
	CHECK_INT(interrupt_caught(), SIGTERM);
	/* Killed by the handler, not by us: SIGKILL, at once. */
	CHECK_INT(proc_wait(&p, &err), 128 + SIGKILL);
	raise(SIGHUP);
	CHECK_INT(interrupt_caught(), SIGHUP);
}

/* Not restarted: with SA_RESTART the read would wait for the child's byte and return 1. */
UNIT_TEST(a_waiting_read_returns_eintr)
{
	char c;
	int fds[2];

	interrupt_catch();
	CHECK_INT(pipe(fds), 0);
	if (fork() == 0) {
		usleep(200 * 1000);
		kill(getppid(), SIGINT);
		sleep(1);
		_exit(write(fds[1], "x", 1) == 1 ? 0 : 1);
	}
	CHECK_INT(read(fds[0], &c, 1), -1);
	CHECK_INT(errno, EINTR);
	CHECK_INT(interrupt_caught(), SIGINT);
	wait(NULL);
	close(fds[0]);
	close(fds[1]);
}

/*
 * git bisect run under `numalab bisect`: the direct child (sh here, git
 * there) dies of the SIGTERM at once; a member of its group that traps it
 * (the subshell, the step) still finishes its record within the grace.
 * Without the grace the subshell would be SIGKILLed during its trap: no record.
 */
UNIT_TEST(an_orphan_in_the_group_finishes_its_record)
{
	char *dir = unit_scratch("interrupt"), *record = xprintf("%s/record", dir);
	char *script = xprintf("(trap 'sleep 0.3; : >%s; exit 0' TERM; while :; do sleep 0.05; done) & wait",
			       record);
	const char *argv[] = { "sh", "-c", script, NULL };
	struct error err;
	struct proc p;

	proc_init(&p, argv);
	p.grace_s = 5;
	CHECK_INT(proc_start(&p, &err), 0);
	usleep(300 * 1000);
	proc_signal(&p, SIGTERM);
	CHECK_INT(proc_wait(&p, &err), 128 + SIGTERM);
	CHECK(access(record, F_OK) == 0);
	remove_tree(dir);
	free(script);
	free(record);
	free(dir);
}

UNIT_MAIN(UNIT_CASE(nothing_caught_before_a_signal),
	  UNIT_CASE(a_signal_kills_the_children_and_is_remembered),
	  UNIT_CASE(an_orphan_in_the_group_finishes_its_record),
	  UNIT_CASE(a_waiting_read_returns_eintr))
