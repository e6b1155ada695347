/* test_cfg.c: the config as the server reads it: ${…} substitution, CDATA under a merge, entities,
 * a .conf file the server takes for YAML. Every expected value is what the engine gave for the same
 * fixture (system.macros, read with getString as the values of clusters are). */
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "check.h"

#define FIX ODS_SOURCE_DIR "/tests/fixtures/shard/cfg/"

/* The macro NAME of the config at path, as cfg_macros reads it ("" when it has none). */
static char *macro(const char *path, const char *name)
{
    char **d = NULL;
    size_t n = 0;
    sc_err e = {0};
    static char val[256];
    val[0] = 0;
    if (cfg_macros(path, &d, &n, &e) != SC_OK)
        return strcpy(val, "(error)");
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(name);
        if (!strncmp(d[i], name, l) && d[i][l] == '=')
            snprintf(val, sizeof val, "%s", d[i] + l + 1);
        free(d[i]);
    }
    free(d);
    return val;
}

int main(void)
{
    /* ${…}: chained, unclosed (read as closed), a key not there (left as written), repeated and
     * leading dots skipped, a trailing one not, [N] among same-named elements */
    CHECK_EQ_STR(macro(FIX "subst.xml", "chain"), "p7q");
    CHECK_EQ_STR(macro(FIX "subst.xml", "missing"), "${nokey}$x$7");
    CHECK_EQ_STR(macro(FIX "subst.xml", "dots"), "7|7|${v.c.}");
    CHECK_EQ_STR(macro(FIX "subst.xml", "index"), "xy${v.tw[2]}");
    CHECK_EQ_STR(macro(FIX "subst.xml", "deep9"), "end");
    CHECK_EQ_STR(macro(FIX "subst.xml", "num"), " +0x1F");
    CHECK_EQ_STR(macro(FIX "subst.xml", "num2"), "7,000");
    /* a declared entity stays as written; &amp; and &#65; are expanded; CDATA is literal */
    CHECK_EQ_STR(macro(FIX "subst.xml", "entity"), "ch-1.&dom;|&A");
    CHECK_EQ_STR(macro(FIX "subst.xml", "cdata"), "&dom;");

    /* getInt / getBool after substitution, as Poco parses them (each checked as a <port> on the
     * engine: " +0x1F" Syntax error, "0x1F" 31, "7,000" 7000) */
    cfg_node *root = NULL;
    sc_err e = {0};
    CHECK_EQ_INT(cfg_load(FIX "subst.xml", NULL, 0, &root, &e), SC_OK);
    const cfg_node *m = cfg_child(root, "macros");
    uint32_t v = 0;
    int b = 0;
    CHECK_EQ_INT(cfg_int(root, cfg_child(m, "num"), &v), CFG_SYNTAX);
    CHECK_EQ_INT(cfg_int(root, cfg_child(m, "hex"), &v), CFG_OK);
    CHECK_EQ_INT((int)v, 31);
    CHECK_EQ_INT(cfg_int(root, cfg_child(m, "num2"), &v), CFG_OK);
    CHECK_EQ_INT((int)v, 7000);
    CHECK_EQ_INT(cfg_int(root, cfg_child(m, "bad"), &v), CFG_SYNTAX);
    CHECK_EQ_INT(cfg_bool(root, cfg_child(m, "yes"), &b), CFG_OK);
    CHECK_EQ_INT(b, 1);
    cfg_free(root);

    /* 10 levels of references and one more: the engine does not start ("Too many property
     * references encountered"); an attribute selector is not followed here: refused, not guessed */
    CHECK_EQ_INT(cfg_load(FIX "circular.xml", NULL, 0, &root, &e), SC_OK);
    char buf[64];
    CHECK_EQ_INT(cfg_string(root, cfg_child(cfg_child(root, "macros"), "deep10"), buf, sizeof buf), CFG_CIRCULAR);
    cfg_free(root);
    CHECK_EQ_INT(cfg_load(FIX "selector.xml", NULL, 0, &root, &e), SC_OK);
    CHECK_EQ_INT(cfg_string(root, cfg_child(cfg_child(root, "macros"), "selector"), buf, sizeof buf), CFG_SELECTOR);
    cfg_free(root);

    /* a merge drops the target's non-blank text nodes only: CDATA sections and blanks stay */
    CHECK_EQ_STR(macro(FIX "cdata/config.xml", "w1"), "12");
    CHECK_EQ_STR(macro(FIX "cdata/config.xml", "w2"), "4");
    CHECK_EQ_STR(macro(FIX "cdata/config.xml", "w3"), "bd");
    CHECK_EQ_STR(macro(FIX "cdata/config.xml", "w4"), " 5");
    CHECK_EQ_STR(macro(FIX "cdata/config.xml", "w5"), "x z");

    /* a .conf beginning with a byte order mark is YAML to the server (CANNOT_PARSE_YAML on the
     * engine): refused; a .xml one is XML (the parser skips the mark) */
    CHECK_EQ_INT(cfg_load(FIX "bom/config.xml", NULL, 0, &root, &e), SC_E_REFUSED);
    CHECK(strstr(e.msg, "YAML") != NULL);
    CHECK(strstr(e.where, "b.conf") != NULL);
    CHECK_EQ_STR(macro(FIX "bomxml/config.xml", "w"), "2");
    return check_report();
}
