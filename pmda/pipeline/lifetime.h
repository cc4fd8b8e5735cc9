/*
 * lifetime.h - which lifetime of a PID a sample belongs to.
 *
 * A process instance is one lifetime, not one PID: a PID the kernel hands
 * to a new process gets a new instance, so no per-process counter ever
 * goes back.  The sampler stamps every stack with its process's start time
 * (struct sp_stack_key.start); the first lifetime of a PID this agent
 * samples is generation 0, each later one the next generation (modulo
 * LIFETIME_GENS).  The instance id packs both, pid + gen * 2^22 (PIDs are
 * below PID_MAX_LIMIT = 2^22), so it is the PID for a first lifetime and
 * is reused only after LIFETIME_GENS lifetimes of one PID; the instance
 * name's first word is "PID" or "PID.GEN" (unique up to the first space,
 * as PCP requires).  A PID is remembered for LIFETIME_FORGET_S after its
 * last sample, so its next lifetime within a daily archive still counts on.
 */
#ifndef LIFETIME_H
#define LIFETIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define LIFETIME_PID_BITS	22		/* PID_MAX_LIMIT on 64-bit */
#define LIFETIME_GENS		512		/* ids stay within 31 bits */
#define LIFETIME_FORGET_S	86400		/* a day: one daily archive */
#define LIFETIME_LABEL_LEN	16		/* "4194303.511" */

struct lifetimes;

struct lifetimes *lifetimes_new(void);
void lifetimes_free(struct lifetimes *l);

/*
 * The generation of the process pid that started at start (the sampler's
 * stamp), seen at now (CLOCK_MONOTONIC seconds): a start not seen before
 * for pid is its next generation.  The last two lifetimes of each PID are
 * told apart, so a drain holding both the old and the new process of a PID
 * names each right.  0, or -ENOMEM (*gen is then 0).
 */
int lifetimes_gen(struct lifetimes *l, pid_t pid, uint32_t start, time_t now,
		  unsigned *gen);

/* Is gen the newest lifetime of pid this agent has sampled? */
bool lifetimes_newest(const struct lifetimes *l, pid_t pid, unsigned gen);

/* Forget PIDs unsampled for LIFETIME_FORGET_S (a sweep at most a minute). */
void lifetimes_forget(struct lifetimes *l, time_t now);

/* PIDs remembered. */
size_t lifetimes_count(const struct lifetimes *l);

/* The instance id of (pid, gen). */
static inline int
lifetime_inst(pid_t pid, unsigned gen)
{
	return (int)((uint32_t)pid | (uint32_t)gen << LIFETIME_PID_BITS);
}

/* "PID" for generation 0, else "PID.GEN": the instance name's first word. */
void lifetime_label(char *buf, size_t len, pid_t pid, unsigned gen);

#endif /* LIFETIME_H */
