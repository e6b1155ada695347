-- orders_gen_model.sql: the invariants of the orders-gen world, checked by the engine on a clean
-- all-days run read as `table` (raw String, one message per row, in output order).
-- Parameters: {start:Date} model day 1, {days:UInt32}, {window:UInt32}, {orders:UInt64}.
-- Prints one row of named counts; every bad_* count must be 0.
CREATE TABLE typed ENGINE = Memory AS
    SELECT
        rowNumberInAllBlocks() AS n,
        JSONExtractString(raw, 'order_id') AS order_id,
        toUInt64(JSONExtractRaw(raw, 'user_id')) AS user_id,
        JSONExtractString(raw, 'status') AS status,
        toDateTime64(JSONExtractString(raw, 'created_at'), 3, 'UTC') AS created_at,
        toDateTime64(JSONExtractString(raw, 'updated_at'), 3, 'UTC') AS updated_at,
        toDecimal64(JSONExtractString(raw, 'items_total'), 2) AS items_total,
        toDecimal64(JSONExtractString(raw, 'discount'), 2) AS discount,
        toDecimal64(JSONExtractString(raw, 'delivery'), 2) AS delivery,
        toDecimal64(JSONExtractString(raw, 'total'), 2) AS total,
        JSONExtractArrayRaw(raw, 'items') AS items,
        arraySum(arrayMap(x -> toDecimal64(JSONExtractString(x, 'price'), 2) * JSONExtractUInt(x, 'qty'), items)) AS items_sum,
        toDate(JSONExtractString(raw, 'snapshot_date')) AS snapshot_date
    FROM table
    SETTINGS max_threads = 1;

WITH per_order AS (
    SELECT
        order_id,
        arraySort(x -> x.1, groupArray((snapshot_date, updated_at, status, created_at, total))) AS h,
        arrayMap(x -> x.1, h) AS d,
        arrayMap(x -> x.2, h) AS u,
        arrayMap(x -> x.3, h) AS s
    FROM typed
    GROUP BY order_id
)
SELECT
    (SELECT count() FROM typed) AS rows,
    (SELECT countIf(total != items_total - discount + delivery) FROM typed) AS bad_total,
    (SELECT countIf(items_total != items_sum) FROM typed) AS bad_items_total,
    (SELECT countIf(length(items) < 1 OR length(items) > 8 OR discount < 0 OR delivery < 0 OR user_id < 1) FROM typed) AS bad_items_or_money,
    (SELECT count() - uniqExact(order_id, snapshot_date) FROM typed) AS bad_duplicate_rows,
    -- output order: day by day, so the snapshot date never goes back, and it is a model day
    (SELECT countIf(snapshot_date < prev OR snapshot_date < {start:Date} OR snapshot_date >= {start:Date} + {days:UInt32})
       FROM (SELECT snapshot_date, lagInFrame(snapshot_date, 1, toDate({start:Date})) OVER (ORDER BY n) AS prev FROM typed)) AS bad_snapshot_date,
    -- each row: created <= updated, updated within the window ending with its snapshot day
    (SELECT countIf(updated_at < created_at
                    OR updated_at >= toDateTime64(snapshot_date + 1, 3, 'UTC')
                    OR updated_at < toDateTime64(snapshot_date - ({window:UInt32} - 1), 3, 'UTC')) FROM typed) AS bad_window,
    (SELECT uniqExact(order_id) FROM typed) AS orders_seen,
    (SELECT countIf(uniq_created != 1) FROM (SELECT order_id, uniqExact(created_at) AS uniq_created FROM typed GROUP BY order_id)) AS bad_created_changes,
    -- an order enters on the day it is created
    (SELECT countIf(toDate(h[1].4) != d[1]) FROM per_order) AS bad_first_day,
    -- across snapshots: updated_at never decreases, the status moves only forward
    (SELECT countIf(NOT arrayAll((a, b) -> a <= b, arrayPopBack(u), arrayPopFront(u))) FROM per_order) AS bad_updated_decreases,
    (SELECT countIf(NOT arrayAll((a, b) -> (a, b) IN [('new', 'new'), ('new', 'paid'), ('new', 'shipped'), ('new', 'delivered'),
                                                     ('new', 'cancelled'), ('paid', 'paid'), ('paid', 'shipped'),
                                                     ('paid', 'delivered'), ('paid', 'cancelled'), ('shipped', 'shipped'),
                                                     ('shipped', 'delivered'), ('delivered', 'delivered'), ('cancelled', 'cancelled')],
                                 arrayPopBack(s), arrayPopFront(s))) FROM per_order) AS bad_status_moves,
    -- the status changes exactly when updated_at does; money never changes
    (SELECT countIf(NOT arrayAll((s1, s2, u1, u2) -> (s1 = s2) = (u1 = u2),
                                 arrayPopBack(s), arrayPopFront(s), arrayPopBack(u), arrayPopFront(u))) FROM per_order) AS bad_status_vs_updated,
    (SELECT countIf(length(arrayDistinct(arrayMap(x -> x.5, h))) != 1) FROM per_order) AS bad_money_changes,
    -- an order still inside the window the next day is in the next day's snapshot
    (SELECT countIf(arrayExists(i -> d[i] + 1 < {start:Date} + {days:UInt32}
                                     AND u[i] >= toDateTime64(d[i] + 1 - ({window:UInt32} - 1), 3, 'UTC')
                                     AND (i = length(d) OR d[i + 1] != d[i] + 1), arrayEnumerate(d))) FROM per_order) AS bad_dropped_early,
    (SELECT countIf(length(d) > 1 AND NOT arrayAll(i -> d[i + 1] = d[i] + 1 OR u[i + 1] > u[i], arrayEnumerate(arrayPopBack(d)))) FROM per_order) AS bad_reentry,
    (SELECT countIf(u[-1] != u[1]) FROM per_order) AS orders_advanced,
    (SELECT countIf(length(d) > 1) FROM per_order) AS orders_repeated
FROM system.one
FORMAT Vertical
