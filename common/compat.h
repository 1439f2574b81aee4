/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Lets the headers in common/ compile unchanged with clang -target bpf and
 * with the host compiler. Only fixed-width kernel types are used, so every
 * struct has one layout on both sides of the kernel boundary.
 */
#ifndef MK_COMPAT_H
#define MK_COMPAT_H

#include <linux/types.h>

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define MK_INLINE static __always_inline

#ifdef __bpf__
#define mk_memset __builtin_memset
#define mk_memcpy __builtin_memcpy
#else
#include <string.h>
#define mk_memset memset
#define mk_memcpy memcpy
#endif

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

#define MK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* MK_COMPAT_H */
