#include "base/interrupt.h"
#include "base/proc.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t caught;

/* Every child stops now (QEMU, a kernel fetch, a build): the callers see why. */
static void on_signal(int sig)
{
	caught = sig;
	proc_kill_all();
}

void interrupt_catch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;   /* no SA_RESTART: poll() must return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int interrupt_caught(void)
{
	return caught;
}
