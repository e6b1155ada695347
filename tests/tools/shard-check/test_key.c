/* test_key.c: key types, ClickHouse TSV unescaping (what the engine reads for each escape) and
 * per-type cityHash64 of text and RowBinary values, against values the engine computed. */
#include <stdint.h>

#include "check.h"
#include "city.h"
#include "key.h"

static uint64_t text_hash(const char *type, const char *v, int *rc)
{
    sc_keytype kt;
    uint64_t h = 0;
    const char *why = NULL;
    *rc = sc_keytype_parse(type, &kt);
    if (*rc == 0)
        *rc = sc_key_hash_text(&kt, v, strlen(v), &h, &why);
    return h;
}

#define CHECK_TEXT(type, v, want)                     \
    do {                                              \
        int rc_;                                      \
        uint64_t h_ = text_hash(type, v, &rc_);       \
        CHECK_EQ_INT(rc_, 0);                         \
        CHECK(h_ == (uint64_t)(want));                \
    } while (0)

#define CHECK_BAD(type, v)                            \
    do {                                              \
        int rc_;                                      \
        text_hash(type, v, &rc_);                     \
        CHECK_EQ_INT(rc_, -1);                        \
    } while (0)

int main(void)
{
    sc_keytype kt;
    CHECK_EQ_INT(sc_keytype_parse("FixedString(5)", &kt), 0);
    CHECK_EQ_INT(kt.kind, SK_FIXED);
    CHECK_EQ_INT(kt.fixed_len, 5);
    CHECK_EQ_INT(sc_keytype_parse("FixedString(0)", &kt), -1);
    CHECK_EQ_INT(sc_keytype_parse("FixedString(5", &kt), -1);
    CHECK_EQ_INT(sc_keytype_parse("Float64", &kt), -1);
    CHECK_EQ_INT(sc_keytype_parse("string", &kt), -1);

    /* TSV unescaping: what the engine read for each input (SELECT hex(s) FROM TSV input) */
    char out[64];
    const char *why = NULL;
    CHECK_EQ_INT(sc_tsv_unescape("a\\tb", 4, out, &why), 3);
    CHECK(!memcmp(out, "a\tb", 3));
    CHECK_EQ_INT(sc_tsv_unescape("a\\qb", 4, out, &why), 4); /* unknown escape keeps its backslash */
    CHECK(!memcmp(out, "a\\qb", 4));
    CHECK_EQ_INT(sc_tsv_unescape("a\\x41b", 6, out, &why), 3);
    CHECK(!memcmp(out, "aAb", 3));
    CHECK_EQ_INT(sc_tsv_unescape("a\\eb", 4, out, &why), 3);
    CHECK_EQ_INT(out[1], 0x1b);
    CHECK_EQ_INT(sc_tsv_unescape("a\\0b", 4, out, &why), 3);
    CHECK_EQ_INT(out[1], 0);
    CHECK_EQ_INT(sc_tsv_unescape("a\\Nb", 4, out, &why), 2);
    CHECK_EQ_INT(sc_tsv_unescape("a\\\\b", 4, out, &why), 3);
    CHECK_EQ_INT(sc_tsv_unescape("ab\\", 3, out, &why), -1);
    CHECK(why != NULL);
    CHECK_EQ_INT(sc_tsv_unescape("a\tb", 3, out, &why), -1);
    CHECK_EQ_INT(sc_tsv_unescape("ab\r", 3, out, &why), -1);
    CHECK(strstr(why, "carriage return") != NULL);
    CHECK_EQ_INT(sc_tsv_unescape("a\0b", 3, out, &why), -1);
    CHECK_EQ_INT(sc_tsv_unescape("\\x4", 3, out, &why), -1);

    /* text values: engine's cityHash64 of the same typed values */
    CHECK_TEXT("String", "abc", 4220206313085259313ULL);
    CHECK_TEXT("String", "", 11160318154034397263ULL);
    CHECK_TEXT("FixedString(5)", "abc", 15954762693552050307ULL);
    CHECK_BAD("FixedString(2)", "abc");
    CHECK_TEXT("Int8", "-1", 8055013221972926055ULL);
    CHECK_TEXT("UInt8", "255", 8055013221972926055ULL);
    CHECK_TEXT("Int8", "-128", 10573636647639147473ULL);
    CHECK_BAD("Int8", "128");
    CHECK_BAD("UInt8", "-1");
    CHECK_BAD("UInt8", "256");
    CHECK_BAD("UInt8", "");
    CHECK_BAD("UInt8", "1a");
    CHECK_TEXT("Int16", "-1", 6547939410751295652ULL);
    CHECK_TEXT("UInt16", "65535", 6547939410751295652ULL);
    CHECK_TEXT("Int32", "-1", 9168733277332772950ULL);
    CHECK_TEXT("UInt32", "4294967295", 9168733277332772950ULL);
    CHECK_TEXT("Int64", "-1", 14600443904207254319ULL);
    CHECK_TEXT("Int64", "-9223372036854775808", 7378616448805205431ULL);
    CHECK_BAD("Int64", "9223372036854775808");
    CHECK_TEXT("UInt64", "0", 4761183170873013810ULL);
    CHECK_BAD("UInt64", "18446744073709551616");
    CHECK_TEXT("UInt128", "255", 16770654450118523898ULL);
    CHECK_TEXT("Int128", "-1", 11156510505809607899ULL);
    CHECK_TEXT("Date", "2020-01-01", 6817702824740635125ULL);
    CHECK_BAD("Date", "2020-02-30");
    CHECK_BAD("Date", "1969-12-31");
    CHECK_TEXT("Date32", "1900-01-01", 6665429861473342916ULL);
    CHECK_TEXT("DateTime", "2020-01-01 00:00:00", 1353083611880552204ULL);
    CHECK_TEXT("DateTime", "1577836800", 1353083611880552204ULL);
    CHECK_TEXT("DateTime", "2026-03-01 12:34:56", 365332585469586217ULL);
    CHECK_BAD("DateTime", "2020-01-01T00:00:00");
    CHECK_TEXT("UUID", "61f0c404-5cb3-11e7-907b-a6006ad3dba0", 17345439983272262203ULL);
    CHECK_BAD("UUID", "61f0c404-5cb3-11e7-907b-a6006ad3dbaz");
    CHECK_BAD("UUID", "61f0c4045cb311e7907ba6006ad3dba0");

    /* RowBinary: what the engine writes (String: LEB128 length + bytes) */
    uint64_t h;
    sc_keytype_parse("String", &kt);
    CHECK_EQ_INT(sc_key_hash_rowbinary(&kt, (const unsigned char *)"\003abc", 4, &h, &why), 4);
    CHECK(h == 4220206313085259313ULL);
    CHECK_EQ_INT(sc_key_hash_rowbinary(&kt, (const unsigned char *)"\003ab", 3, &h, &why), 0);
    CHECK_EQ_INT(sc_key_hash_rowbinary(&kt, (const unsigned char *)"\x80", 1, &h, &why), 0);
    CHECK_EQ_INT(sc_key_hash_rowbinary(&kt, (const unsigned char *)"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
                                       10, &h, &why), -1);
    sc_keytype_parse("Int8", &kt);
    CHECK_EQ_INT(sc_key_hash_rowbinary(&kt, (const unsigned char *)"\xff", 1, &h, &why), 1);
    CHECK(h == 8055013221972926055ULL);
    sc_keytype_parse("UUID", &kt);
    static const unsigned char uuid[16] = {0xe7, 0x11, 0xb3, 0x5c, 0x04, 0xc4, 0xf0, 0x61,
                                           0xa0, 0xdb, 0xd3, 0x6a, 0x00, 0xa6, 0x7b, 0x90};
    CHECK_EQ_INT(sc_key_hash_rowbinary(&kt, uuid, 16, &h, &why), 16);
    CHECK(h == 17345439983272262203ULL);
    CHECK_EQ_INT(sc_key_hash_rowbinary(&kt, uuid, 15, &h, &why), 0);
    return check_report();
}
