-- native_wire_class: the wire contract v1 (docs/wire-contract.md) as far as native SQL can say it,
-- the baseline bench/10-wire.sh compares order_wire_class with; defines native_wire_class(raw).
-- Known gap, where the engine cannot see the difference: keys are compared as the engine's parser
-- reports them. (Numbers out of the parser's range are not_an_object here and in the contract.)
CREATE FUNCTION IF NOT EXISTS native_wire_class AS (raw) -> multiIf(
    NOT isValidJSON(raw) OR startsWith(raw, '\xEF\xBB\xBF') OR JSONType(raw) != 'Object',
        'not_an_object',
    arraySort(JSONExtractKeys(raw)) != ['created_at', 'delivery', 'discount', 'items', 'items_total', 'order_id',
                                        'snapshot_date', 'status', 'total', 'updated_at', 'user_id'],
        'keyset_mismatch',
    NOT (
        -- order_id, status: 1..128 bytes, no C0 control, no U+007F
        JSONType(raw, 'order_id') = 'String'
        AND length(JSONExtractString(raw, 'order_id')) BETWEEN 1 AND 128
        AND NOT match(JSONExtractString(raw, 'order_id'), '[\\x00-\\x1F\\x7F]')
        AND JSONType(raw, 'status') = 'String'
        AND length(JSONExtractString(raw, 'status')) BETWEEN 1 AND 128
        AND NOT match(JSONExtractString(raw, 'status'), '[\\x00-\\x1F\\x7F]')
        -- user_id: an integer literal in 1 .. 2^63-1 (the parser calls those Int64)
        AND JSONType(raw, 'user_id') = 'Int64'
        AND match(JSONExtractRaw(raw, 'user_id'), '^[1-9][0-9]*$')
        -- timestamps: the exact form, and a real date-time that prints back unchanged
        AND JSONType(raw, 'created_at') = 'String'
        AND match(JSONExtractString(raw, 'created_at'), '^(19|2[0-2])[0-9]{2}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9][.][0-9]{3}Z$')
        AND toString(toDate32OrNull(substring(JSONExtractString(raw, 'created_at'), 1, 10))) = substring(JSONExtractString(raw, 'created_at'), 1, 10)
        AND JSONType(raw, 'updated_at') = 'String'
        AND match(JSONExtractString(raw, 'updated_at'), '^(19|2[0-2])[0-9]{2}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9][.][0-9]{3}Z$')
        AND toString(toDate32OrNull(substring(JSONExtractString(raw, 'updated_at'), 1, 10))) = substring(JSONExtractString(raw, 'updated_at'), 1, 10)
        -- money: canonical Decimal(18, 2) text, no "-0.00"
        AND JSONType(raw, 'items_total') = 'String'
        AND match(JSONExtractString(raw, 'items_total'), '^-?(0|[1-9][0-9]{0,15})[.][0-9]{2}$')
        AND JSONExtractString(raw, 'items_total') != '-0.00'
        AND JSONType(raw, 'discount') = 'String'
        AND match(JSONExtractString(raw, 'discount'), '^-?(0|[1-9][0-9]{0,15})[.][0-9]{2}$')
        AND JSONExtractString(raw, 'discount') != '-0.00'
        AND JSONType(raw, 'delivery') = 'String'
        AND match(JSONExtractString(raw, 'delivery'), '^-?(0|[1-9][0-9]{0,15})[.][0-9]{2}$')
        AND JSONExtractString(raw, 'delivery') != '-0.00'
        AND JSONType(raw, 'total') = 'String'
        AND match(JSONExtractString(raw, 'total'), '^-?(0|[1-9][0-9]{0,15})[.][0-9]{2}$')
        AND JSONExtractString(raw, 'total') != '-0.00'
        -- items: an array (its numbers were range-checked by the parser above)
        AND JSONType(raw, 'items') = 'Array'
        -- snapshot_date: a real Date that prints back unchanged (the range clamps otherwise)
        AND JSONType(raw, 'snapshot_date') = 'String'
        AND match(JSONExtractString(raw, 'snapshot_date'), '^[0-9]{4}-[0-9]{2}-[0-9]{2}$')
        AND toString(toDateOrNull(JSONExtractString(raw, 'snapshot_date'))) = JSONExtractString(raw, 'snapshot_date')
        AND JSONExtractString(raw, 'snapshot_date') BETWEEN '1970-01-01' AND '2149-06-06'
    ),
        'field_invalid',
    '');
