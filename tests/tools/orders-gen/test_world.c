/* test_og_world: the order world's invariants: lives move only along the allowed status edges,
 * snapshots follow the window rule, money adds up, and everything is a function of the seed. */
#include "check.h"
#include "world.h"

#include <stdlib.h>

#define N 3000
#define D 20
#define W 3
#define START 20513 /* 2026-03-01: SELECT toInt32(toDate('2026-03-01')) */

static int allowed(og_status from, og_status to)
{
    if (from == to)
        return 1;
    switch (from) {
    case OG_NEW: return to == OG_PAID || to == OG_CANCELLED;
    case OG_PAID: return to == OG_SHIPPED || to == OG_CANCELLED;
    case OG_SHIPPED: return to == OG_DELIVERED;
    default: return 0;
    }
}

/* Between two snapshots an order may take several steps (paid and shipped on one day). */
static int reachable(og_status from, og_status to)
{
    if (from == to || allowed(from, to))
        return 1;
    return (from == OG_NEW && (to == OG_SHIPPED || to == OG_DELIVERED)) ||
           (from == OG_PAID && to == OG_DELIVERED);
}

static void test_init(void)
{
    og_world w;
    const char *err = NULL;
    CHECK_EQ_INT(og_world_init(&w, 1, 10, 0, 3, START, &err), -1);
    CHECK(err != NULL);
    CHECK_EQ_INT(og_world_init(&w, 1, 10, 3, 0, START, &err), -1);
    CHECK_EQ_INT(og_world_init(&w, 1, 10, 3, 3, -1, &err), -1);
    CHECK_EQ_INT(og_world_init(&w, 1, 10, 1, 3, 65535, &err), 0);  /* 2149-06-06 is the last */
    CHECK_EQ_INT(og_world_init(&w, 1, 10, 2, 3, 65535, &err), -1);
    CHECK_EQ_INT(og_world_init(&w, 1, 0, 3, 3, START, &err), 0);
}

static void test_lives(const og_world *w)
{
    int bad_order = 0, bad_edge = 0, bad_span = 0, bad_day = 0;
    int cancelled = 0, delivered = 0, stays_new = 0;
    for (uint64_t i = 0; i < N; i++) {
        og_life l, l2;
        og_life_of(w, i, &l);
        og_life_of(w, i, &l2);
        CHECK(l.created_ms == l2.created_ms && l.nevents == l2.nevents);
        uint32_t cd = (uint32_t)(i * D / N);
        int64_t day0 = (START + (int64_t)cd) * OG_DAY_MS;
        bad_day += l.created_day != cd || l.created_ms < day0 || l.created_ms >= day0 + OG_DAY_MS;
        og_status s = OG_NEW;
        int64_t t = l.created_ms;
        for (unsigned k = 0; k < l.nevents; k++) {
            bad_order += l.event_ms[k] <= t;
            bad_edge += !allowed(s, l.event_status[k]) || l.event_status[k] == s;
            s = l.event_status[k];
            t = l.event_ms[k];
        }
        bad_span += t >= day0 + OG_SPAN_DAYS * OG_DAY_MS;
        cancelled += s == OG_CANCELLED;
        delivered += s == OG_DELIVERED;
        stays_new += s == OG_NEW;
    }
    CHECK_EQ_INT(bad_order, 0);
    CHECK_EQ_INT(bad_edge, 0);
    CHECK_EQ_INT(bad_span, 0);
    CHECK_EQ_INT(bad_day, 0);
    /* every ending occurs, delivered is the common one */
    CHECK(cancelled > 0 && stays_new > 0 && delivered > N / 2);
}

static void test_snapshots(const og_world *w)
{
    static og_status last_status[N];
    static int64_t last_upd[N];
    static int seen_days[N];
    int bad_window = 0, bad_candidates = 0, bad_move = 0, bad_same = 0, bad_future = 0;
    int missing_first_day = 0, advanced = 0, repeated = 0;
    for (uint32_t day = 0; day < D; day++) {
        uint64_t first, end;
        og_snapshot_candidates(w, day, &first, &end);
        int64_t end_ms = (START + (int64_t)day + 1) * OG_DAY_MS;
        int64_t from_ms = (START + (int64_t)day - W + 1) * OG_DAY_MS;
        for (uint64_t i = 0; i < N; i++) {
            og_life l;
            og_life_of(w, i, &l);
            og_status s;
            int64_t u;
            int in = og_snapshot_state(w, &l, day, &s, &u);
            /* the rule, restated: created by the end of the day, last change within the window */
            og_status es = OG_NEW;
            int64_t eu = l.created_ms;
            for (unsigned k = 0; k < l.nevents; k++)
                if (l.event_ms[k] < end_ms) {
                    es = l.event_status[k];
                    eu = l.event_ms[k];
                }
            int want = l.created_ms < end_ms && eu >= from_ms;
            bad_window += in != want || (in && (s != es || u != eu));
            bad_candidates += in && (i < first || i >= end);
            if (l.created_day == day)
                missing_first_day += !in;
            if (!in)
                continue;
            bad_future += u >= end_ms || u < l.created_ms;
            if (seen_days[i]) {
                bad_move += !reachable(last_status[i], s) || u < last_upd[i];
                bad_same += (s == last_status[i]) != (u == last_upd[i]);
                advanced += u != last_upd[i];
                repeated += u == last_upd[i];
            }
            seen_days[i]++;
            last_status[i] = s;
            last_upd[i] = u;
        }
    }
    CHECK_EQ_INT(bad_window, 0);
    CHECK_EQ_INT(bad_candidates, 0);
    CHECK_EQ_INT(bad_move, 0);
    CHECK_EQ_INT(bad_same, 0);
    CHECK_EQ_INT(bad_future, 0);
    CHECK_EQ_INT(missing_first_day, 0);
    /* most repeat unchanged, some advance */
    CHECK(repeated > advanced && advanced > N / 4);
}

static void test_money(const og_world *w)
{
    int bad = 0, discounted = 0, express = 0, free_delivery = 0;
    static uint64_t ids[N];
    for (uint64_t i = 0; i < N; i++) {
        og_life l;
        og_life_of(w, i, &l);
        og_order o, o2;
        og_order_fill(w, &l, OG_PAID, l.created_ms, &o);
        og_order_fill(w, &l, OG_PAID, l.created_ms, &o2);
        int64_t sum = 0;
        for (unsigned k = 0; k < o.nitems; k++) {
            bad += o.items[k].qty < 1 || o.items[k].price <= 0 || o.items[k].product >= OG_PRODUCTS;
            bad += o.items[k].price != og_product_price(o.items[k].product);
            sum += o.items[k].price * o.items[k].qty;
        }
        bad += o.nitems < 1 || o.nitems > OG_MAX_ITEMS;
        bad += o.items_total != sum;
        bad += o.total != o.items_total - o.discount + o.delivery;
        bad += o.discount < 0 || o.discount > o.items_total || o.delivery < 0 || o.user_id < 1;
        bad += o.total != o2.total || o.id != o2.id || o.user_id != o2.user_id;
        discounted += o.discount > 0;
        express += o.delivery == 999;
        free_delivery += o.delivery == 0;
        ids[i] = o.id;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(discounted > 0 && express > 0 && free_delivery > 0);
    int dup = 0;
    for (uint64_t i = 0; i < N; i++)
        for (uint64_t j = i + 1; j < N; j++)
            dup += ids[i] == ids[j];
    CHECK_EQ_INT(dup, 0);
}

static void test_seed_matters(void)
{
    og_world a, b;
    const char *err;
    og_world_init(&a, 1, N, D, W, START, &err);
    og_world_init(&b, 2, N, D, W, START, &err);
    int same = 0;
    for (uint64_t i = 0; i < 100; i++) {
        og_life la, lb;
        og_life_of(&a, i, &la);
        og_life_of(&b, i, &lb);
        same += la.created_ms == lb.created_ms;
    }
    CHECK(same < 5);
}

int main(void)
{
    og_world w;
    const char *err;
    test_init();
    CHECK_EQ_INT(og_world_init(&w, 42, N, D, W, START, &err), 0);
    test_lives(&w);
    test_snapshots(&w);
    test_money(&w);
    test_seed_matters();
    return check_report();
}
