/* Futex wrappers and the spin-then-sleep wait (see sync.h). */
#include "sync.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

void pf_futex_wait(_Atomic uint32_t *word, uint32_t expected)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void pf_futex_wake_all(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

void pf_wait_stamp(_Atomic uint32_t *done, _Atomic uint32_t *waiters, uint32_t want, uint32_t spin)
{
    for (uint32_t k = 0; k < spin; k++) {
        if (pf_stamp_reached(atomic_load_explicit(done, memory_order_acquire), want)) return;
        pf_cpu_relax();
    }
    for (;;) {
        atomic_store_explicit(waiters, 1, memory_order_seq_cst);
        uint32_t have = atomic_load_explicit(done, memory_order_seq_cst);
        if (pf_stamp_reached(have, want)) return;
        pf_futex_wait(done, have);
        if (pf_stamp_reached(atomic_load_explicit(done, memory_order_acquire), want)) return;
    }
}
