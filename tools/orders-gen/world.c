/* og_world: order lives, snapshot membership and the product catalog of orders-gen; no I/O,
 * so the model's invariants are unit tested on their own (tests/tools/orders-gen/test_world.c). */
#include "world.h"

#include "rng.h"

/* Stream purposes, one per independent aspect of an order. */
enum { STREAM_LIFE = 1, STREAM_BASKET = 2 };

static const char *const STATUS_NAMES[] = {"new", "paid", "shipped", "delivered", "cancelled"};

const char *og_status_name(og_status s)
{
    return STATUS_NAMES[s];
}

int og_world_init(og_world *w, uint64_t seed, uint64_t orders, uint32_t days, uint32_t window,
                  int64_t start_day, const char **err)
{
    /* orders * days must not overflow in og_created_day. */
    if (orders > 1000000000000ULL) {
        *err = "--orders must be at most 1000000000000";
        return -1;
    }
    if (days < 1 || window < 1) {
        *err = "--days and --window must be at least 1";
        return -1;
    }
    if (start_day < OG_MIN_DAY || start_day + (int64_t)days - 1 > OG_MAX_DAY) {
        *err = "the model days must lie in 1970-01-01 .. 2149-06-06";
        return -1;
    }
    w->seed = seed;
    w->orders = orders;
    w->days = days;
    w->window = window;
    w->start_day = start_day;
    return 0;
}

uint32_t og_created_day(const og_world *w, uint64_t i)
{
    return (uint32_t)(i * w->days / w->orders);
}

/* The first order created on model day `day` (day may be days: then it is `orders`). */
static uint64_t first_of_day(const og_world *w, int64_t day)
{
    if (day <= 0)
        return 0;
    if (day >= (int64_t)w->days)
        return w->orders;
    return ((uint64_t)day * w->orders + w->days - 1) / w->days;
}

void og_snapshot_candidates(const og_world *w, uint32_t day, uint64_t *first, uint64_t *end)
{
    /* An order's last update falls before the end of created_day + OG_SPAN_DAYS - 1, and a
     * snapshot holds only updates from day - window + 1 on. */
    *first = first_of_day(w, (int64_t)day - (int64_t)w->window + 1 - (OG_SPAN_DAYS - 1));
    *end = first_of_day(w, (int64_t)day + 1);
}

/* A delay in [lo, hi] ms, skewed towards lo: most customers pay fast, couriers are mostly on time. */
static int64_t delay(og_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo);
    uint64_t a = og_rng_next(r) % (span + 1), b = og_rng_next(r) % (span + 1);
    return lo + (int64_t)(a < b ? a : b);
}

#define MIN_MS 60000LL
#define HOUR_MS 3600000LL

void og_life_of(const og_world *w, uint64_t i, og_life *life)
{
    og_rng r;
    og_rng_stream(&r, w->seed, i, STREAM_LIFE);
    life->index = i;
    life->created_day = og_created_day(w, i);
    /* The time of day rises to an evening peak: the later of two uniform draws. */
    int64_t a = og_rng_range(&r, 0, OG_DAY_MS - 1), b = og_rng_range(&r, 0, OG_DAY_MS - 1);
    int64_t t = (w->start_day + life->created_day) * OG_DAY_MS + (a > b ? a : b);
    life->created_ms = t;
    life->nevents = 0;
    /* Transition probabilities in per mille; the delays bound the life to
     * 6 h + 3 d + 5 d after creation, inside OG_SPAN_DAYS. */
    uint32_t x = og_rng_below(&r, 1000);
    if (x >= 850) {
        if (x < 920) {
            life->event_ms[0] = t + delay(&r, 30 * MIN_MS, 3 * OG_DAY_MS);
            life->event_status[0] = OG_CANCELLED;
            life->nevents = 1;
        }
        return; /* the rest stay `new`: abandoned carts */
    }
    t += delay(&r, MIN_MS, 6 * HOUR_MS);
    life->event_ms[0] = t;
    life->event_status[0] = OG_PAID;
    life->nevents = 1;
    x = og_rng_below(&r, 1000);
    if (x >= 920) {
        if (x < 970) {
            life->event_ms[1] = t + delay(&r, HOUR_MS, 2 * OG_DAY_MS);
            life->event_status[1] = OG_CANCELLED;
            life->nevents = 2;
        }
        return;
    }
    t += delay(&r, 2 * HOUR_MS, 3 * OG_DAY_MS);
    life->event_ms[1] = t;
    life->event_status[1] = OG_SHIPPED;
    life->nevents = 2;
    if (og_rng_below(&r, 1000) < 950) {
        life->event_ms[2] = t + delay(&r, 12 * HOUR_MS, 5 * OG_DAY_MS);
        life->event_status[2] = OG_DELIVERED;
        life->nevents = 3;
    }
}

int og_snapshot_state(const og_world *w, const og_life *life, uint32_t day, og_status *status,
                      int64_t *updated_ms)
{
    if (life->created_day > day)
        return 0;
    int64_t end_ms = (w->start_day + day + 1) * OG_DAY_MS;
    og_status s = OG_NEW;
    int64_t u = life->created_ms;
    for (unsigned k = 0; k < life->nevents && life->event_ms[k] < end_ms; k++) {
        s = life->event_status[k];
        u = life->event_ms[k];
    }
    if (u < (w->start_day + (int64_t)day - (int64_t)w->window + 1) * OG_DAY_MS)
        return 0;
    *status = s;
    *updated_ms = u;
    return 1;
}

/* Basket sizes 1..8: most orders hold one to three items. */
static const uint16_t NITEMS_WEIGHTS[OG_MAX_ITEMS] = {30, 25, 17, 10, 7, 5, 3, 3};
static const uint16_t QTY_WEIGHTS[5] = {70, 18, 6, 3, 3};

void og_order_fill(const og_world *w, const og_life *life, og_status status, int64_t updated_ms,
                   og_order *o)
{
    og_rng r;
    og_rng_stream(&r, w->seed, life->index, STREAM_BASKET);
    o->index = life->index;
    o->id = og_mix64(life->index + og_mix64(w->seed)); /* a bijection of the index */
    /* Customers come back: about two orders per customer. */
    o->user_id = 100000 + og_rng_next(&r) % (w->orders / 2 + 1);
    o->status = status;
    o->created_ms = life->created_ms;
    o->updated_ms = updated_ms;
    o->nitems = og_rng_pick(&r, NITEMS_WEIGHTS, OG_MAX_ITEMS) + 1;
    int64_t sum = 0;
    for (unsigned k = 0; k < o->nitems; k++) {
        og_item *it = &o->items[k];
        /* Popular products first: the smaller of two draws. */
        uint32_t a = og_rng_below(&r, OG_PRODUCTS), b = og_rng_below(&r, OG_PRODUCTS);
        it->product = a < b ? a : b;
        it->qty = og_rng_pick(&r, QTY_WEIGHTS, 5) + 1;
        it->price = og_product_price(it->product);
        sum += it->price * it->qty;
    }
    o->items_total = sum;
    /* A quarter of the orders carry a 5–20 % coupon, rounded down to the cent. */
    o->discount = og_rng_below(&r, 4) == 0 ? sum * og_rng_range(&r, 5, 20) / 100 : 0;
    /* Free delivery from 50.00, 4.99 below it, 9.99 for express. */
    uint32_t d = og_rng_below(&r, 10);
    o->delivery = d == 0 ? 999 : sum >= 5000 ? 0 : 499;
    o->total = o->items_total - o->discount + o->delivery;
}

int64_t og_product_price(uint32_t product)
{
    static const int64_t ENDINGS[4] = {99, 49, 95, 0};
    uint64_t h = og_mix64(product + 0x7072696365ULL);
    uint32_t tier = (uint32_t)(h % 10);
    int64_t units = tier < 6 ? 1 + (int64_t)(h >> 8) % 29    /* 1 .. 29 */
                  : tier < 9 ? 30 + (int64_t)(h >> 8) % 70   /* 30 .. 99 */
                             : 100 + (int64_t)(h >> 8) % 400; /* 100 .. 499 */
    return units * 100 + ENDINGS[(h >> 40) & 3];
}

/* Catalog words, JSON-ready: a few carry escapes and non-ASCII UTF-8, as real catalogs do. */
static const char *const WORDS1[] = {
    "Blue",      "Steel",    "Organic", "Wireless", "Compact",  "Classic", "Bamboo",  "Smart",
    "Vintage",   "Linen",    "Ceramic", "Pocket",   "Deluxe",   "Nordic",  "Crème",   "Großes",
    "Jalapeño",  "Ultra",    "Travel",  "Kids'",    "Waterproof", "Heavy-Duty", "Mini", "XL",
    "27\\\"",    "Café",     "Retro",   "Eco",      "Premium",  "Folding", "Glass",   "Cotton",
};
static const char *const WORDS2[] = {
    "Kettle",  "Backpack",   "Lamp",     "Headphones", "Mug",       "Blender",   "Notebook",
    "Monitor", "Sneakers",   "Teapot",   "Umbrella",   "Charger",   "Tent",      "Blanket",
    "Frying Pan", "Keyboard", "Wallet",  "Jacket",     "Sunglasses", "Coffee Beans", "Puzzle",
    "Scarf",   "Desk Chair", "Toaster",  "Speaker",    "Brûlée Torch", "Fächer",  "茶碗",
    "Cable\\\\Adapter",      "Water Bottle", "Socks (3 pairs)", "Yoga Mat",
};

void og_product_title(uint32_t product, const char **word1, const char **word2)
{
    uint64_t h = og_mix64(product + 0x7469746C65ULL);
    *word1 = WORDS1[h % (sizeof WORDS1 / sizeof *WORDS1)];
    *word2 = WORDS2[(h >> 32) % (sizeof WORDS2 / sizeof *WORDS2)];
}
