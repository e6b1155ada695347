/* og_world: the deterministic order world of orders-gen: N orders created over D days, each
 * order's whole life (status events, items, money) a pure function of (seed, order index). */
#ifndef OG_WORLD_H
#define OG_WORLD_H

#include <stdint.h>

typedef enum { OG_NEW, OG_PAID, OG_SHIPPED, OG_DELIVERED, OG_CANCELLED } og_status;

#define OG_MAX_ITEMS 8
#define OG_MAX_EVENTS 3  /* new → paid → shipped → delivered, or a cancel on the way */
#define OG_SPAN_DAYS 10  /* every event falls before the end of creation day + OG_SPAN_DAYS - 1 */
#define OG_DAY_MS 86400000LL
#define OG_PRODUCTS 20000
/* Model days must give valid snapshot dates (the contract's Date range). */
#define OG_MIN_DAY 0      /* 1970-01-01 */
#define OG_MAX_DAY 65535  /* 2149-06-06 */

typedef struct {
    uint64_t seed;
    uint64_t orders;
    uint32_t days;      /* model days 0 .. days-1 */
    uint32_t window;    /* a snapshot holds the orders updated in its last `window` days */
    int64_t start_day;  /* model day 0, in days since 1970-01-01 */
} og_world;

/* The life of one order: created, then up to OG_MAX_EVENTS status changes, in time order. */
typedef struct {
    uint64_t index;
    uint32_t created_day; /* model day */
    int64_t created_ms;   /* Unix milliseconds, like every _ms below */
    unsigned nevents;
    int64_t event_ms[OG_MAX_EVENTS];
    og_status event_status[OG_MAX_EVENTS];
} og_life;

typedef struct {
    uint32_t product;
    uint32_t qty;
    int64_t price; /* cents */
} og_item;

/* One order as a snapshot shows it. Money in cents; total = items_total - discount + delivery. */
typedef struct {
    uint64_t index;
    uint64_t id;      /* order_id is "ORD-" and these 64 bits in hex; unique per world */
    uint64_t user_id; /* >= 1 */
    og_status status;
    int64_t created_ms, updated_ms;
    int64_t items_total, discount, delivery, total;
    unsigned nitems;
    og_item items[OG_MAX_ITEMS];
} og_order;

/* Checks the parameters: 0, or -1 with *err set to a static message. */
int og_world_init(og_world *w, uint64_t seed, uint64_t orders, uint32_t days, uint32_t window,
                  int64_t start_day, const char **err);

const char *og_status_name(og_status s);

/* The model day order i is created on: orders are spread evenly, in index order. */
uint32_t og_created_day(const og_world *w, uint64_t i);

/* Orders [*first, *end) are the only ones that can be in the snapshot of model day `day`. */
void og_snapshot_candidates(const og_world *w, uint32_t day, uint64_t *first, uint64_t *end);

void og_life_of(const og_world *w, uint64_t i, og_life *life);

/* The order's state at the end of model day `day`: 1 when it belongs to that day's snapshot
 * (created by then and last updated within the window), with its status and updated_at. */
int og_snapshot_state(const og_world *w, const og_life *life, uint32_t day, og_status *status,
                      int64_t *updated_ms);

/* The full order in a given state; items and money never change over its life. */
void og_order_fill(const og_world *w, const og_life *life, og_status status, int64_t updated_ms,
                   og_order *o);

/* Catalog: a product's price in cents and its title as two words of JSON-ready text
 * (already escaped, may hold UTF-8). */
int64_t og_product_price(uint32_t product);
void og_product_title(uint32_t product, const char **word1, const char **word2);

#endif
