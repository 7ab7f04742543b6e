#include "threads.h"

#include <stdlib.h>

void test_barrier_init(struct test_barrier *barrier, unsigned parties)
{
    InitializeSRWLock(&barrier->lock);
    InitializeConditionVariable(&barrier->turned);
    barrier->parties = parties;
    barrier->arrived = 0;
    barrier->turn = 0;
}

void test_barrier_wait(struct test_barrier *barrier)
{
    AcquireSRWLockExclusive(&barrier->lock);
    unsigned long turn = barrier->turn;
    if (++barrier->arrived == barrier->parties) {
        barrier->arrived = 0;
        barrier->turn++;
        WakeAllConditionVariable(&barrier->turned);
    } else {
        /* A turn number, not the count, says when to go: a fast thread may arrive at the next
         * turn before a slow one has left this one. */
        while (barrier->turn == turn)
            SleepConditionVariableSRW(&barrier->turned, &barrier->lock, INFINITE, 0);
    }
    ReleaseSRWLockExclusive(&barrier->lock);
}

static struct {
    const char *name;
    DWORD stall_ms;
    test_watchdog_report_fn report;
    void *arg;
    volatile LONG progress;
    volatile LONG stopped;
} watchdog;

static DWORD WINAPI watch(void *unused)
{
    LONG seen = watchdog.progress;
    DWORD still = 0;

    (void)unused;
    while (!watchdog.stopped) {
        Sleep(100);
        if (watchdog.progress != seen) {
            seen = watchdog.progress;
            still = 0;
            continue;
        }
        if ((still += 100) < watchdog.stall_ms || watchdog.stopped)
            continue;
        fflush(stdout);
        fprintf(stderr, "%s: HANG: no progress for %lu ms; what each thread was doing:\n",
                watchdog.name, (unsigned long)watchdog.stall_ms);
        if (watchdog.report)
            watchdog.report(watchdog.arg);
        fprintf(stderr, "%s: ending the process (exit code 3) after %d failed of %d checks\n",
                watchdog.name, test_failures, test_checks);
        fflush(stderr);
        TerminateProcess(GetCurrentProcess(), 3);
    }
    return 0;
}

void test_watchdog_start(const char *name, DWORD stall_ms, test_watchdog_report_fn report,
                         void *arg)
{
    const char *env = getenv("DXCL_TEST_WATCHDOG_MS");
    HANDLE thread;

    watchdog.name = name;
    watchdog.stall_ms = env && *env ? (DWORD)strtoul(env, NULL, 10) : stall_ms;
    watchdog.report = report;
    watchdog.arg = arg;
    watchdog.stopped = 0;
    thread = CreateThread(NULL, 0, watch, NULL, 0, NULL);
    REQUIRE(thread != NULL, "watchdog thread: error %lu", GetLastError());
    CloseHandle(thread);
}

void test_watchdog_progress(void)
{
    InterlockedIncrement(&watchdog.progress);
}

void test_watchdog_stop(void)
{
    InterlockedExchange(&watchdog.stopped, 1);
}

static const char *crash_name = "test";

static LONG WINAPI report_crash(EXCEPTION_POINTERS *info)
{
    const EXCEPTION_RECORD *record = info->ExceptionRecord;
    char module[MAX_PATH] = "?";
    HMODULE base = NULL;

    if (GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                               GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                           record->ExceptionAddress, &base))
        GetModuleFileNameA(base, module, sizeof(module));
    fflush(stdout);
    fprintf(stderr,
            "%s: CRASH: exception %#lx at %p (%s+%#llx), thread %lu; ending the process (exit "
            "code 4) after %d failed of %d checks\n",
            crash_name, record->ExceptionCode, record->ExceptionAddress, module,
            (unsigned long long)((char *)record->ExceptionAddress - (char *)base),
            GetCurrentThreadId(), test_failures, test_checks);
    fflush(stderr);
    TerminateProcess(GetCurrentProcess(), 4);
    return EXCEPTION_EXECUTE_HANDLER;
}

void test_exit_on_crash(const char *name)
{
    crash_name = name;
    SetUnhandledExceptionFilter(report_crash);
}

DWORD test_run_child(const char *args, DWORD timeout_ms)
{
    char exe[MAX_PATH], command[MAX_PATH + 512];
    STARTUPINFOA startup = {.cb = sizeof(startup)};
    PROCESS_INFORMATION process;
    DWORD code = 0;

    GetModuleFileNameA(NULL, exe, sizeof(exe));
    snprintf(command, sizeof(command), "\"%s\" %s", exe, args);
    fflush(stdout);
    fflush(stderr);
    REQUIRE(CreateProcessA(exe, command, NULL, NULL, FALSE, 0, NULL, NULL, &startup, &process),
            "CreateProcess(%s): error %lu", command, GetLastError());
    if (WaitForSingleObject(process.hProcess, timeout_ms) != WAIT_OBJECT_0) {
        TerminateProcess(process.hProcess, 124);
        WaitForSingleObject(process.hProcess, INFINITE);
    }
    GetExitCodeProcess(process.hProcess, &code);
    CloseHandle(process.hProcess);
    CloseHandle(process.hThread);
    return code;
}

int test_child_finish(const char *name)
{
    return test_finish(name) == 0 ? TEST_CHILD_PASSED : 1;
}

const char *test_child_outcome(DWORD code)
{
    switch (code) {
    case TEST_CHILD_PASSED:
        return "passed";
    case 1:
        return "checks failed";
    case 3:
        return "hang, ended by the watchdog";
    case 4:
        return "crash";
    case 124:
        return "still running at the time limit";
    case 0:
        return "ended before its result (killed, e.g. by an abort() in the driver)";
    default:
        return "ended abnormally";
    }
}

void test_check_child(const char *args, const char *what)
{
    DWORD code = test_run_child(args, INFINITE);

    printf("%s: %s (exit code %lu)\n", what, test_child_outcome(code), (unsigned long)code);
    fflush(stdout);
    CHECK(code == TEST_CHILD_PASSED, "%s: %s (exit code %lu)", what, test_child_outcome(code),
          (unsigned long)code);
}
