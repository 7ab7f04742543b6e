/* Helpers for tests that run several threads against dxcl: a reusable barrier (rounds of a
 * race start together), a watchdog that turns a hang into a reported failure, and running this
 * same program as a child so that one hang cannot hide the results of the other cases.
 * CHECK and REQUIRE are not thread-safe: worker threads record what they saw and one thread
 * checks it. */
#ifndef DXCL_TEST_THREADS_H
#define DXCL_TEST_THREADS_H

#include "testlib.h"

/* `parties` threads meet at test_barrier_wait; the last to arrive lets them all go. Reusable:
 * the next round's waits start a new turn. */
struct test_barrier {
    SRWLOCK lock;
    CONDITION_VARIABLE turned;
    unsigned parties, arrived;
    unsigned long turn;
};
void test_barrier_init(struct test_barrier *barrier, unsigned parties);
void test_barrier_wait(struct test_barrier *barrier);

/* The watchdog: when test_watchdog_progress() has not been called for `stall_ms`, it prints
 * "<name>: HANG: no progress for N ms", calls `report(arg)` (which prints what each thread was
 * doing) and ends the process with exit code 3. It never fires while progress is made, so a
 * slow machine only needs a generous stall time, not a total time limit. The environment
 * variable DXCL_TEST_WATCHDOG_MS overrides stall_ms. One watchdog per process. */
typedef void (*test_watchdog_report_fn)(void *arg);
void test_watchdog_start(const char *name, DWORD stall_ms, test_watchdog_report_fn report,
                         void *arg);
void test_watchdog_progress(void);
/* Stops it (the process may then wait on anything). */
void test_watchdog_stop(void);

/* A crash (an unhandled exception) prints "<name>: CRASH: exception ... at module+offset" and
 * ends the process with exit code 4 at once: Wine would otherwise start its debugger and hang
 * the test until its time limit, printing nothing. */
void test_exit_on_crash(const char *name);

/* Runs this program again with `args` (the command line after the program's name), waits up to
 * timeout_ms and returns its exit code; a child still running then is ended and counted as
 * exit code 124. The child shares this process's console output. */
DWORD test_run_child(const char *args, DWORD timeout_ms);
/* A child ends with test_child_finish: TEST_CHILD_PASSED when every check passed, 1 when one
 * failed. Not 0: under Wine a process killed by a signal (an abort() inside the driver) also
 * reports 0. */
#define TEST_CHILD_PASSED 42
int test_child_finish(const char *name);
/* What a child's exit code says: "passed", "checks failed", "hang (watchdog)", "crash"... */
const char *test_child_outcome(DWORD code);
/* Runs the child and checks that it passed (`what` names it in the failure). */
void test_check_child(const char *args, const char *what);

#endif
