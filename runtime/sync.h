/* Spin-then-sleep waiting on 32-bit words (Linux futex): waits spin briefly for low latency, then sleep so
 * that more workers than cores stay correct and leave the machine usable. */
#ifndef PF_RUNTIME_SYNC_H
#define PF_RUNTIME_SYNC_H

#include <stdatomic.h>
#include <stdint.h>

static inline void pf_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Sleeps while *word == expected (returns at once otherwise); may return spuriously. */
void pf_futex_wait(_Atomic uint32_t *word, uint32_t expected);
/* Wakes every thread sleeping on word. */
void pf_futex_wake_all(_Atomic uint32_t *word);

/* True when stamp `have` is at or past `want` (run stamps wrap around). */
static inline int pf_stamp_reached(uint32_t have, uint32_t want)
{
    return (int32_t)(have - want) >= 0;
}

/* Waits until pf_stamp_reached(*done, want). `waiters` is set while sleeping, so the signaller knows to wake;
 * spins `spin` iterations first. The seq_cst store/load pairs here and in pf_signal form a Dekker handshake:
 * either the waiter sees the new stamp or the signaller sees the waiter. */
void pf_wait_stamp(_Atomic uint32_t *done, _Atomic uint32_t *waiters, uint32_t want, uint32_t spin);

/* Publishes `stamp` and wakes sleepers, if any. */
static inline void pf_signal_stamp(_Atomic uint32_t *done, _Atomic uint32_t *waiters, uint32_t stamp)
{
    atomic_store_explicit(done, stamp, memory_order_seq_cst);
    if (atomic_load_explicit(waiters, memory_order_seq_cst)) {
        atomic_store_explicit(waiters, 0, memory_order_relaxed);
        pf_futex_wake_all(done);
    }
}

#endif
