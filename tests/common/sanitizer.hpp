// Whether this build runs under a sanitizer that owns the allocator (AddressSanitizer,
// ThreadSanitizer): the counting allocators then count through the sanitizer's malloc hooks
// instead of replacing malloc / operator new (which the sanitizer already replaces).
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ROBOT_EDGE_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ROBOT_EDGE_SANITIZER_ALLOCATOR 1
#endif
#endif

#ifdef ROBOT_EDGE_SANITIZER_ALLOCATOR
#include <sanitizer/allocator_interface.h>
#endif
