/* What antpool-threadx's tests need around the ThreadX Linux port: the
 * controlling thread, a simulated interrupt, and a few questions the port's
 * headers answer (compiled with the kernel, build.rs). */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

#include "tx_api.h"

/* The controlling thread: its control block and stack, static. On the Linux
 * port a thread runs on its pthread's own stack; this one only has to be at
 * least TX_MINIMUM_STACK. */
#define CONTROLLER_PRIORITY 16
static TX_THREAD controller_thread;
static ULONG controller_stack[1024];
static void (*controller_body)(void);

static void controller_entry(ULONG input)
{
    (void)input;
    controller_body();
}

/* A simulated interrupt: a pthread at the port's interrupt priority that
 * calls the handler between _tx_thread_context_save and
 * _tx_thread_context_restore, as the port's own timer interrupt does (and
 * as the port's readme shows for other interrupts). */
static pthread_t isr_thread;
static sem_t isr_start;
static volatile int isr_running;
static volatile long isr_period_ns;
static int (*isr_handler)(void);

void _tx_thread_context_save(void);
void _tx_thread_context_restore(void);

static void *isr_entry(void *unused)
{
    (void)unused;
    for (;;) {
        while (sem_wait(&isr_start) != 0 && errno == EINTR) {
        }
        while (isr_running) {
            struct timespec period = {0, isr_period_ns};
            while (nanosleep(&period, &period) != 0 && errno == EINTR) {
            }
            if (!isr_running) {
                break;
            }
            _tx_thread_context_save();
            int more = isr_handler();
            _tx_thread_context_restore();
            if (!more) {
                isr_running = 0;
            }
        }
    }
    return NULL;
}

/* The kernel calls this once, before it schedules the first thread. */
void tx_application_define(void *first_unused_memory)
{
    (void)first_unused_memory;
    tx_thread_create(&controller_thread, "controller", controller_entry, 0, controller_stack,
                     sizeof controller_stack, CONTROLLER_PRIORITY, CONTROLLER_PRIORITY,
                     TX_NO_TIME_SLICE, TX_AUTO_START);
    /* The interrupt thread is made here, before any ThreadX thread runs:
     * pthread_create allocates, which a ThreadX thread could be preempted in
     * the middle of. */
    sem_init(&isr_start, 0, 0);
    pthread_create(&isr_thread, NULL, isr_entry, NULL);
    struct sched_param sp = {.sched_priority = TX_LINUX_PRIORITY_ISR};
    pthread_setschedparam(isr_thread, SCHED_FIFO, &sp);
}

/* Runs `body` on the controlling thread (priority CONTROLLER_PRIORITY).
 * Never returns: the body ends the process. */
void antpool_sim_start(void (*body)(void))
{
    controller_body = body;
    tx_kernel_enter();
}

/* Calls `handler` in simulated interrupt context about `hz` times a second,
 * until it returns 0 or antpool_sim_stop_interrupts is called. */
void antpool_sim_start_interrupts(long hz, int (*handler)(void))
{
    isr_handler = handler;
    isr_period_ns = 1000000000L / (hz > 0 ? hz : 1);
    isr_running = 1;
    sem_post(&isr_start);
}

void antpool_sim_stop_interrupts(void)
{
    isr_running = 0;
}

/* 1 on a pthread that is a ThreadX thread (not the scheduler, the timer,
 * the interrupt thread or a plain pthread): only those may use TX_DISABLE. */
int antpool_sim_on_threadx_thread(void)
{
    return _tx_linux_threadx_thread;
}
