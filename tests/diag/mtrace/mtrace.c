/* mtrace.c - LD_PRELOAD heap-growth tracer (x86_64 glibc).
 * Active only if /proc/self/cmdline contains $MTRACE_MATCH (default "test_soak").
 * Tracks outstanding host-malloc allocations per call stack (8 frames) and dumps
 * them every $MTRACE_EVERY s (default 5) to $MTRACE_DIR (default /tmp/mtrace)/<pid>.<n>.txt
 * Line format: "bytes count allocs | mod+0xoff(sym+0xd) ; ..."   (frame1 = caller of malloc)
 * Stacks come from libgcc _Unwind_Backtrace (as glibc backtrace() does), cut at Wine's ntdll.so.
 * Env: MTRACE_SLOTS (log2 pointer slots, default 22), MTRACE_STACKS (log2 stack slots, default 16).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <unwind.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

#define NF 8  /* frames kept per stack */
#define NB 16 /* frames captured (shim frames + NF) */

typedef struct {
    uintptr_t p;
    size_t sz;
    uint32_t sid;
} ent_t;
typedef struct {
    uint64_t h, bytes, count, allocs;
    uint32_t n, used;
    void *f[NF];
} stk_t;

static ent_t *E;
static size_t Emask, Ecnt, Ecap;
static stk_t *S;
static size_t SN, Smask, Scnt, Scap; /* S[SN] = "[stack table full]" */
static stk_t *DB;                    /* private dump copy */
static uint64_t drops, tot_bytes, tot_count, tot_allocs;
static volatile int active;
static pthread_mutex_t L = PTHREAD_MUTEX_INITIALIZER;  /* tables */
static pthread_mutex_t DL = PTHREAD_MUTEX_INITIALIZER; /* dump serialisation */
static __thread int guard __attribute__((tls_model("initial-exec")));
static char dir[512], cmd[256];
static int every = 5, dumpno;

static inline size_t ph(uintptr_t p)
{
    uint64_t h = (p >> 4) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 29)) & Emask;
}

static uint32_t intern(void **f, int n)
{ /* under L */
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < n; i++)
        h = (h ^ (uintptr_t)f[i]) * 1099511628211ull;
    h ^= h >> 31;
    size_t i = h & Smask;
    while (S[i].used) {
        if (S[i].h == h && S[i].n == (uint32_t)n && !memcmp(S[i].f, f, n * sizeof(void *)))
            return (uint32_t)i;
        i = (i + 1) & Smask;
    }
    if (Scnt >= Scap)
        return (uint32_t)SN;
    S[i].used = 1;
    S[i].h = h;
    S[i].n = n;
    memcpy(S[i].f, f, n * sizeof(void *));
    Scnt++;
    return (uint32_t)i;
}

static void insert(uintptr_t p, size_t sz, uint32_t sid, int isnew)
{ /* under L */
    size_t i = ph(p);
    while (E[i].p && E[i].p != p)
        i = (i + 1) & Emask;
    if (E[i].p == p) { /* stale entry: drop old accounting */
        stk_t *o = &S[E[i].sid];
        o->bytes -= E[i].sz;
        o->count--;
        tot_bytes -= E[i].sz;
        tot_count--;
    } else {
        if (Ecnt >= Ecap) {
            drops++;
            return;
        }
        Ecnt++;
    }
    E[i].p = p;
    E[i].sz = sz;
    E[i].sid = sid;
    S[sid].bytes += sz;
    S[sid].count++;
    tot_bytes += sz;
    tot_count++;
    if (isnew) {
        S[sid].allocs++;
        tot_allocs++;
    }
}

static int untrack(uintptr_t p, size_t *sz, uint32_t *sid)
{ /* under L; backward-shift delete */
    size_t i = ph(p), j, k;
    while (E[i].p && E[i].p != p)
        i = (i + 1) & Emask;
    if (!E[i].p)
        return 0;
    *sz = E[i].sz;
    *sid = E[i].sid;
    S[*sid].bytes -= *sz;
    S[*sid].count--;
    tot_bytes -= *sz;
    tot_count--;
    for (j = i;;) {
        j = (j + 1) & Emask;
        if (!E[j].p)
            break;
        k = ph(E[j].p);
        if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
            continue;
        E[i] = E[j];
        i = j;
    }
    E[i].p = 0;
    Ecnt--;
    return 1;
}

static void forget(void *p)
{
    size_t sz;
    uint32_t sid;
    pthread_mutex_lock(&L);
    untrack((uintptr_t)p, &sz, &sid);
    pthread_mutex_unlock(&L);
}

/* Wine: libgcc crashes (NULL deref) unwinding through the syscall/unix-call dispatchers in
 * Wine's ntdll.so, so the unwind stops at the first frame inside ntdll.so. */
static int is_wine;
static uintptr_t stop_lo, stop_hi;
static int find_ntdll(struct dl_phdr_info *i, size_t sz, void *arg)
{
    const char *b = i->dlpi_name ? strrchr(i->dlpi_name, '/') : NULL;
    (void)sz;
    (void)arg;
    if (!b || strcmp(b + 1, "ntdll.so"))
        return 0;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int k = 0; k < i->dlpi_phnum; k++)
        if (i->dlpi_phdr[k].p_type == PT_LOAD) {
            uintptr_t a = i->dlpi_addr + i->dlpi_phdr[k].p_vaddr;
            if (a < lo)
                lo = a;
            if (a + i->dlpi_phdr[k].p_memsz > hi)
                hi = a + i->dlpi_phdr[k].p_memsz;
        }
    if (hi) {
        __atomic_store_n(&stop_lo, lo, __ATOMIC_RELAXED);
        __atomic_store_n(&stop_hi, hi, __ATOMIC_RELEASE);
    }
    return 1;
}
struct btarg {
    void **a;
    int n;
    uintptr_t lo, hi;
};
static _Unwind_Reason_Code bt_cb(struct _Unwind_Context *c, void *arg)
{
    struct btarg *b = arg;
    uintptr_t ip = _Unwind_GetIP(c);
    if (!ip)
        return _URC_END_OF_STACK;
    b->a[b->n++] = (void *)ip;
    if (b->n >= NB || (ip >= b->lo && ip < b->hi))
        return _URC_END_OF_STACK;
    return _URC_NO_REASON;
}

static __attribute__((noinline)) void track(void *p, size_t sz, void *ra)
{
    void *bt[NB];
    int n, i, s = -1;
    struct btarg ba = {bt, 0, 0, 0};
    int saved_errno = errno;
    guard = 1;
    if (is_wine && !__atomic_load_n(&stop_hi, __ATOMIC_ACQUIRE))
        dl_iterate_phdr(find_ntdll, NULL);
    ba.hi = __atomic_load_n(&stop_hi, __ATOMIC_ACQUIRE);
    ba.lo = stop_lo;
    _Unwind_Backtrace(bt_cb, &ba);
    n = ba.n;
    for (i = 0; i < n && i < 6; i++)
        if (bt[i] == ra) {
            s = i;
            break;
        }
    if (s < 0) {
        bt[0] = ra;
        n = 1;
        s = 0;
    } /* unwinder lost: keep the direct caller only */
    n -= s;
    if (n > NF)
        n = NF;
    pthread_mutex_lock(&L);
    insert((uintptr_t)p, sz, intern(bt + s, n), 1);
    pthread_mutex_unlock(&L);
    guard = 0;
    errno = saved_errno;
}

#define RA __builtin_return_address(0)
#define TRACK(p, n)                                                                                \
    do {                                                                                           \
        if (active && !guard && (p))                                                               \
            track((p), (n), RA);                                                                   \
    } while (0)

void *malloc(size_t n)
{
    void *p = __libc_malloc(n);
    TRACK(p, n);
    return p;
}
void free(void *p)
{
    if (p && active)
        forget(p);
    __libc_free(p);
}
void *calloc(size_t a, size_t b)
{
    void *p = __libc_calloc(a, b);
    TRACK(p, a * b);
    return p;
}
void *memalign(size_t al, size_t n)
{
    void *p = __libc_memalign(al, n);
    TRACK(p, n);
    return p;
}
void *aligned_alloc(size_t al, size_t n)
{
    void *p = __libc_memalign(al, n);
    TRACK(p, n);
    return p;
}
void *valloc(size_t n)
{
    void *p = __libc_valloc(n);
    TRACK(p, n);
    return p;
}
void *pvalloc(size_t n)
{
    void *p = __libc_pvalloc(n);
    TRACK(p, n);
    return p;
}
int posix_memalign(void **r, size_t al, size_t n)
{
    if (!al || (al & (al - 1)) || al % sizeof(void *))
        return EINVAL;
    void *p = __libc_memalign(al, n);
    if (!p)
        return ENOMEM;
    *r = p;
    TRACK(p, n);
    return 0;
}
void *realloc(void *p, size_t n)
{
    size_t osz = 0;
    uint32_t osid = 0;
    int found = 0;
    if (!active || !p) {
        void *q = __libc_realloc(p, n);
        if (!p)
            TRACK(q, n);
        return q;
    }
    if (!n) {
        free(p);
        return NULL;
    } /* glibc: realloc(p,0) frees */
    pthread_mutex_lock(&L);
    found = untrack((uintptr_t)p, &osz, &osid);
    pthread_mutex_unlock(&L);
    void *q = __libc_realloc(p, n);
    if (q)
        TRACK(q, n);
    else if (found) {
        pthread_mutex_lock(&L);
        insert((uintptr_t)p, osz, osid, 0);
        pthread_mutex_unlock(&L);
    }
    return q;
}

/* ---- dumping (caller has guard=1) ---- */
static char wb[65536];
static size_t wl;
static int wfd;
static void wflush(void)
{
    size_t o = 0;
    while (o < wl) {
        ssize_t r = write(wfd, wb + o, wl - o);
        if (r <= 0)
            break;
        o += r;
    }
    wl = 0;
}
static void wput(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void wput(const char *fmt, ...)
{
    va_list ap;
    if (wl > sizeof(wb) - 1024)
        wflush();
    va_start(ap, fmt);
    int r = vsnprintf(wb + wl, sizeof(wb) - wl, fmt, ap);
    va_end(ap);
    if (r > 0)
        wl += (size_t)r < sizeof(wb) - wl ? (size_t)r : sizeof(wb) - wl - 1;
}
static int bycost(const void *a, const void *b)
{
    uint64_t x = ((const stk_t *)a)->bytes, y = ((const stk_t *)b)->bytes;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void savemaps(void)
{ /* <pid>.maps: resolve raw (e.g. PE) addresses later */
    char path[600], b[4096];
    ssize_t r;
    int in, out;
    snprintf(path, sizeof path, "%s/%d.maps", dir, (int)getpid());
    if ((in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)) < 0)
        return;
    if ((out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) >= 0) {
        while ((r = read(in, b, sizeof b)) > 0)
            if (write(out, b, r) != r)
                break;
        close(out);
    }
    close(in);
}

static void dump(const char *tag)
{
    char path[600], tmp[620];
    size_t n = 0;
    uint64_t tb, tc, ta, dr;
    size_t ns, np;
    pthread_mutex_lock(&DL);
    pthread_mutex_lock(&L);
    for (size_t i = 0; i <= SN; i++)
        if ((S[i].used || i == SN) && (int64_t)S[i].bytes > 0)
            DB[n++] = S[i];
    tb = tot_bytes;
    tc = tot_count;
    ta = tot_allocs;
    dr = drops;
    ns = Scnt;
    np = Ecnt;
    pthread_mutex_unlock(&L);
    qsort(DB, n, sizeof(stk_t), bycost);
    snprintf(path, sizeof path, "%s/%d.%d.txt", dir, (int)getpid(), dumpno++);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    wfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (wfd < 0) {
        pthread_mutex_unlock(&DL);
        return;
    }
    wl = 0;
    wput("# mtrace pid=%d tag=%s time=%ld outstanding_bytes=%llu outstanding_count=%llu "
         "total_allocs=%llu "
         "stacks=%zu live_ptrs=%zu dropped=%llu lines=%zu cmd=%s\n",
         (int)getpid(), tag, (long)time(NULL), (unsigned long long)tb, (unsigned long long)tc,
         (unsigned long long)ta, ns, np, (unsigned long long)dr, n, cmd);
    for (size_t i = 0; i < n; i++) {
        stk_t *s = &DB[i];
        wput("%llu %llu %llu |", (unsigned long long)s->bytes, (unsigned long long)s->count,
             (unsigned long long)s->allocs);
        if (!s->n)
            wput(" [stack table full]");
        for (uint32_t k = 0; k < s->n; k++) {
            Dl_info di;
            uintptr_t a = (uintptr_t)s->f[k];
            const char *sep = k ? " ;" : "";
            if (a && dladdr((void *)(a - 1), &di) && di.dli_fname) {
                const char *b = strrchr(di.dli_fname, '/');
                b = b ? b + 1 : di.dli_fname;
                wput("%s %s+0x%lx", sep, *b ? b : "?",
                     (unsigned long)(a - (uintptr_t)di.dli_fbase));
                if (di.dli_sname)
                    wput("(%s+0x%lx)", di.dli_sname, (unsigned long)(a - (uintptr_t)di.dli_saddr));
            } else
                wput("%s 0x%lx", sep, (unsigned long)a);
        }
        wput("\n");
    }
    wflush();
    close(wfd);
    rename(tmp, path);
    savemaps();
    pthread_mutex_unlock(&DL);
}

static void *dumper(void *arg)
{
    (void)arg;
    guard = 1;
    for (;;) {
        struct timespec ts = {every, 0};
        while (nanosleep(&ts, &ts) && errno == EINTR)
            ;
        dump("periodic");
    }
    return NULL;
}

static void fk_prep(void)
{
    if (active)
        pthread_mutex_lock(&L);
}
static void fk_par(void)
{
    if (active)
        pthread_mutex_unlock(&L);
}
static void fk_child(void)
{
    if (active) {
        pthread_mutex_init(&L, NULL);
        pthread_mutex_init(&DL, NULL);
        active = 0;
    }
}

static size_t envlog2(const char *name, int def, int lo, int hi)
{
    const char *v = getenv(name);
    int x = v ? atoi(v) : def;
    if (x < lo || x > hi)
        x = def;
    return (size_t)1 << x;
}

__attribute__((constructor)) static void mtrace_init(void)
{
    char cl[16384];
    ssize_t r, len = 0;
    int fd;
    const char *m = getenv("MTRACE_MATCH"), *d = getenv("MTRACE_DIR"), *ev = getenv("MTRACE_EVERY");
    if (!m)
        m = "test_soak";
    if ((fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)) < 0)
        return;
    while (len < (ssize_t)sizeof(cl) - 1 && (r = read(fd, cl + len, sizeof(cl) - 1 - len)) > 0)
        len += r;
    close(fd);
    for (ssize_t i = 0; i < len; i++)
        if (!cl[i])
            cl[i] = ' ';
    cl[len] = 0;
    if (!strstr(cl, m))
        return;
    is_wine = strstr(cl, "wine") != NULL;
    memcpy(cmd, cl, len < (ssize_t)sizeof(cmd) ? (size_t)len : sizeof(cmd) - 1);
    for (char *c = cmd; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    guard = 1;
    size_t EN = envlog2("MTRACE_SLOTS", 22, 10, 28);
    SN = envlog2("MTRACE_STACKS", 16, 8, 22);
    Emask = EN - 1;
    Ecap = EN - EN / 8;
    Smask = SN - 1;
    Scap = SN - SN / 8;
    E = mmap(NULL, EN * sizeof(ent_t), PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    S = mmap(NULL, (SN + 1) * sizeof(stk_t), PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    DB = mmap(NULL, (SN + 1) * sizeof(stk_t), PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (E == MAP_FAILED || S == MAP_FAILED || DB == MAP_FAILED) {
        guard = 0;
        return;
    }
    snprintf(dir, sizeof dir, "%s", d && *d ? d : "/tmp/mtrace");
    mkdir(dir, 0777);
    if (ev && atoi(ev) > 0)
        every = atoi(ev);
    {
        void *b[NB];
        struct btarg ba = {b, 0, 0, 0};
        _Unwind_Backtrace(bt_cb, &ba);
    } /* warm up unwinder */
    savemaps();
    pthread_atfork(fk_prep, fk_par, fk_child);
    sigset_t all, old;
    pthread_t t;
    pthread_attr_t at;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* dumper never takes signals */
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    int ok = pthread_create(&t, &at, dumper, NULL) == 0;
    pthread_attr_destroy(&at);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!ok) {
        guard = 0;
        return;
    }
    active = 1;
    guard = 0;
}

__attribute__((destructor)) static void mtrace_fini(void)
{
    if (!active)
        return;
    guard = 1; /* stays set: exit-time allocs untracked */
    dump("exit");
}
