/* fuzz_common.h - shared helpers of the libFuzzer targets: engine start-up, the input
 * convention "<variant name>\n<rest>" (an unknown name picks a variant by its first
 * byte) and a loud failure that libFuzzer records as a crash. */
#ifndef CHESSVAR_FUZZ_COMMON_H
#define CHESSVAR_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/chessvar.h"

/* Initialises the engine tables once, before the first input. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    engine_init();
    return 0;
}

/* Splits the input into a variant and a NUL-terminated copy of the rest (caller frees),
 * whose length (it may hold NUL bytes) goes to *len; NULL when the input is too short. */
static inline char *fuzz_split(const uint8_t *data, size_t size, const Variant **v, size_t *len) {
    if (size == 0 || size > 4096) return NULL;
    const uint8_t *nl = memchr(data, '\n', size);
    size_t name_len = nl ? (size_t)(nl - data) : 0;
    *v = NULL;
    for (int i = 0; nl && i < variant_count(); i++) {
        const Variant *cand = variant_at(i);
        if (strlen(cand->name) == name_len && memcmp(cand->name, data, name_len) == 0) *v = cand;
    }
    size_t skip = *v ? name_len + 1 : 1;
    if (!*v) *v = variant_at(data[0] % variant_count());
    if (skip > size) return NULL;
    char *rest = malloc(size - skip + 1);
    if (!rest) return NULL;
    memcpy(rest, data + skip, size - skip);
    rest[size - skip] = 0;
    *len = size - skip;
    return rest;
}

/* Reports a broken invariant with its input context and aborts (a libFuzzer finding). */
static inline void fuzz_fail(const Variant *v, const char *what, const char *detail) {
    fprintf(stderr, "fuzz: %s: %s: %s\n", v->name, what, detail);
    abort();
}

#endif
