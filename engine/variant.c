/* variant.c - the variant registry: every variant is one record, defined in its own
 * file and listed here. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "supremo.h"
#include "variant.h"

/* The registry, in the order `--help` and `--all` list them. */
static Variant *registry[] = {&variant_chess, &variant_switching, &variant_superchess,
                              &variant_supremo, &variant_cannon10};
enum { REGISTRY_SIZE = sizeof registry / sizeof registry[0] };

/* Fills type_of_letter from the piece table and runs the variant's own init. */
static void variant_prepare(Variant *v) {
    memset(v->type_of_letter, 0, sizeof v->type_of_letter);
    for (int t = 1; t <= v->npt; t++) {
        char c = v->pieces[t].letter;
        v->type_of_letter[(unsigned char)c] = (int8_t)t;
        if (c >= 'A' && c <= 'Z') v->type_of_letter[(unsigned char)(c - 'A' + 'a')] = (int8_t)t;
    }
    if (v->ops->init) v->ops->init(v);
}

/* The shared tables: keys and geometry. */
static void engine_build(void) {
    zobrist_init();
    bitboard_init();
}

/* One-time set-up of the shared tables (pthread_once: a second call, even from another
 * thread, waits for the first and builds nothing). A variant's own tables are built when
 * it is first looked up (variant_ready): a run pays only for the variants it plays, which
 * matters to short runs (the Superchess and Supremo tables cost about as much as
 * everything else at start-up). */
void engine_init(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, engine_build);
}

/* Registry entries whose tables are built, and the lock that builds them once even when
 * threads look variants up together. */
static atomic_bool prepared[REGISTRY_SIZE];
static pthread_mutex_t prepare_lock = PTHREAD_MUTEX_INITIALIZER;

/* The i-th registry entry with its tables built. */
static const Variant *variant_ready(int i) {
    if (!atomic_load_explicit(&prepared[i], memory_order_acquire)) {
        pthread_mutex_lock(&prepare_lock);
        if (!atomic_load_explicit(&prepared[i], memory_order_relaxed)) {
            variant_prepare(registry[i]);
            atomic_store_explicit(&prepared[i], true, memory_order_release);
        }
        pthread_mutex_unlock(&prepare_lock);
    }
    return registry[i];
}

/* Number of registered variants. */
int variant_count(void) { return REGISTRY_SIZE; }

/* The i-th variant in registry order (NULL out of range). */
const Variant *variant_at(int i) { return i >= 0 && i < REGISTRY_SIZE ? variant_ready(i) : NULL; }

/* The name of the i-th variant, without building its tables (NULL out of range). */
const char *variant_name_at(int i) {
    return i >= 0 && i < REGISTRY_SIZE ? registry[i]->name : NULL;
}

/* Looks a variant up by its command-line name. */
const Variant *variant_by_name(const char *name) {
    for (int k = 0; k < REGISTRY_SIZE; k++)
        if (strcmp(registry[k]->name, name) == 0) return variant_ready(k);
    return NULL;
}

/* The FEN of a named start position, or the default one for name == NULL. */
const char *variant_start(const Variant *v, const char *name) {
    if (!name) return v->start_fen;
    for (int i = 0; i < 4 && v->starts[i].name; i++)
        if (strcmp(v->starts[i].name, name) == 0) return v->starts[i].fen;
    return NULL;
}

/* A random start for a game: the variant's own draw, else one of its playable named
 * starts, else its default start. */
bool variant_random_start(const Variant *v, uint64_t draw, char *fen, size_t n, CvError *err) {
    if (v->ops->random_start) return v->ops->random_start(v, draw, fen, n, err);
    const char *playable[4];
    int k = 0;
    for (int i = 0; i < 4 && v->starts[i].name; i++)
        if (v->starts[i].playable) playable[k++] = v->starts[i].fen;
    snprintf(fen, n, "%s", k > 0 ? playable[draw % (uint64_t)k] : v->start_fen);
    return true;
}
