-- wire_mix.sql: the message mix that tests/bats/order_wire_class.bats feeds to order_wire_class
-- and to the engine's own isValidJSON side by side (issue 10). Creates table `mix` (src, n, raw)
-- from files in the working directory:
--   fuzz/**   every file of tests/fuzz/corpus/*/, raw bytes, one message a file (src 'fuzz');
--   cases.tsv tests/fixtures/wire/cases.tsv (src 'cases');
--   gen.bin   orders-gen --dirty … --format rowbinary (src 'gen');
-- plus, deterministically from {seed:UInt64}, {mutants:UInt64} mutants of the valid orders among
-- them (src 'mutant'): 1-3 byte deletions, insertions (JSON punctuation, literals, escapes, lone
-- surrogates, numbers at and beyond the engine's range, bad UTF-8, a BOM, "string:" tricks) and
-- replacements at random positions, and sometimes `items` wrapped in 1018-1026 arrays.
-- The mix depends only on those files and the parameters (n is a row label: the corpus files are
-- read in parallel, so n of a fuzz row may differ between runs; nothing is derived from it).
-- file(…, RawBLOB) gives no row for an empty file: cases.tsv and gen.bin carry empty messages.
CREATE TABLE mix (src String, n UInt64, raw String) ENGINE = Memory;

INSERT INTO mix SELECT 'fuzz', rowNumberInAllBlocks(), raw FROM file('fuzz/**', RawBLOB, 'raw String');
INSERT INTO mix SELECT 'cases', rowNumberInAllBlocks(), raw
    FROM file('cases.tsv', TSV, 'expected String, raw String, note String');
INSERT INTO mix SELECT 'gen', rowNumberInAllBlocks(), raw FROM file('gen.bin', RowBinary, 'raw String');

-- Each edit is prefix || piece || suffix: `del` bytes at `pos` give way to `piece`. One edit per
-- subquery level (a lambda nested in itself would be inlined into a huge query tree).
INSERT INTO mix
WITH
    ['"', ':', ',', '[', ']', '{', '}', '\\', ' ', '\t', '\n', '\r', '\f', '\0', '0', '1', '9', '-', '+', '.',
     'e', 'E', 'tru', 'true', 'nul', 'null', 'false', 'True', 'NaN', 'Infinity', '0x10', '\\u', '\\u12G4',
     '\\ud800', '\\udc00', '\\ud83d\\ude00', '\\ud800\\u0041', '\\x', '\\"', '\\n', '\\u0000', '\\/', 'e400', 'e-400',
     'e99999999999999999999', '99999999999999999999', '18446744073709551615', '18446744073709551616',
     '9223372036854775808', '-9223372036854775808', '-9223372036854775809', '1.7976931348623157e308',
     '1.7976931348623159e308', '1e308', '1e309', '\xEF\xBB\xBF', '\xC3', '\xC3\xA9', '\xED\xA0\x80', '\xF4\x90\x80\x80',
     '\xC0\xAF', '\xFF', '\x7F', '":', '":1', ':"x"', '"k":1', ',"k":1', ',"order_id":"x"', ',1', '[[', ']]', '{"k":',
     '"x":tru]', ':[tru]}', '":nul}'] AS tokens,
    -- what an edit drawn from h does: 0-2 delete 1-3 bytes, 3-5 insert a token, 6 insert any byte,
    -- 7-8 replace a byte by a token, 9 replace a byte by any byte
    h -> intDiv(h, 1000003) % 10 AS op,
    h -> multiIf(op(h) < 3, '', op(h) IN (6, 9), char(intDiv(h, 104729) % 256), tokens[1 + intDiv(h, 7919) % length(tokens)]) AS piece,
    h -> multiIf(op(h) < 3, 1 + intDiv(h, 31) % 3, op(h) < 7, 0, 1) AS del,
    (s, pos, h) -> substring(s, 1, pos) || piece(h) || substring(s, pos + 1 + del(h)) AS edit,
    (SELECT groupArray(raw) FROM (SELECT raw FROM mix WHERE order_wire_class(raw) = '' ORDER BY src, cityHash64(raw), raw)) AS bases
SELECT 'mutant', number, if(k >= 2, edit(s2, h3 % (length(s2) + 1), h3), s2)
FROM (SELECT number, h3, k, if(k >= 1, edit(s1, h2 % (length(s1) + 1), h2), s1) AS s2
FROM (SELECT number, h2, h3, k, edit(s0, h1 % (length(s0) + 1), h1) AS s1
FROM (SELECT number, h1, h2, h3, h4 % 3 AS k,
             -- one in 50: items wrapped in 1018-1026 more arrays first (a generated order has
             -- "items" right before "snapshot_date")
             if(intDiv(h4, 3) % 50 = 0,
                replaceOne(replaceOne(base, '"items":', '"items":' || repeat('[', 1018 + intDiv(h4, 150) % 9)),
                           ',"snapshot_date"', repeat(']', 1018 + intDiv(h4, 150) % 9) || ',"snapshot_date"'),
                base) AS s0
      FROM (SELECT number, cityHash64({seed:UInt64}, number, 1) AS h1, cityHash64({seed:UInt64}, number, 2) AS h2,
                   cityHash64({seed:UInt64}, number, 3) AS h3, cityHash64({seed:UInt64}, number, 4) AS h4,
                   bases[1 + number % length(bases)] AS base
            FROM numbers({mutants:UInt64})))));
