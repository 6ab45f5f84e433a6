/* Licensed under the Apache License, Version 2.0.
 *
 * test_py.c: unit tests of pl_py, Python's string and number rules.
 * The float table was written once by /usr/bin/python3 (3.11):
 *     print('{ %s, "%s" },' % (v.hex(), repr(v)))
 * for chosen values (signs, -0.0, integers around 2^53, the 1e16 and
 * 1e-4 boundaries, subnormals, the extremes), 40 random bit patterns and
 * every 37th power of two; the inputs are hex literals, so the expected
 * text is not also the input. The json tables are json.dumps and
 * json.loads of the same Python. Output is TAP (t/unit/tap.h).
 */
#include <stdio.h>
#include <string.h>

#include <apr_general.h>
#include <apr_pools.h>

#include "pl_py.h"
#include "tap.h"

static const struct {
    double d;
    const char *repr;
} floats[] = {
    { 0x0.0p+0, "0.0" },
    { -0x0.0p+0, "-0.0" },
    { 0x1.0000000000000p+0, "1.0" },
    { -0x1.0000000000000p+0, "-1.0" },
    { 0x1.4000000000000p+3, "10.0" },
    { 0x1.8000000000000p+0, "1.5" },
    { 0x1.0000000000000p+4, "16.0" },
    { 0x1.9000000000000p+6, "100.0" },
    { 0x1.999999999999ap-4, "0.1" },
    { 0x1.999999999999ap-3, "0.2" },
    { 0x1.3333333333333p-2, "0.3" },
    { 0x1.5555555555555p-2, "0.3333333333333333" },
    { 0x1.5555555555555p-1, "0.6666666666666666" },
    { -0x1.4000000000000p+1, "-2.5" },
    { 0x1.a36e2eb1c432dp-14, "0.0001" },
    { 0x1.02e4b6ce5dc68p-13, "0.00012345" },
    { 0x1.4f8b588e368f1p-17, "1e-05" },
    { 0x1.f75104d551d69p-17, "1.5e-05" },
    { 0x1.a36371ea531a8p-14, "9.999e-05" },
    { 0x1.c6bf526340000p+49, "1000000000000000.0" },
    { 0x1.c6bf52633ffffp+49, "999999999999999.9" },
    { 0x1.1c37937e08000p+53, "1e+16" },
    { 0x1.aa535d3d0c000p+53, "1.5e+16" },
    { 0x1.1c37937e07fffp+53, "9999999999999998.0" },
    { 0x1.c12218377de66p+46, "123456789012345.6" },
    { 0x1.18b54f22aeb03p+50, "1234567890123456.8" },
    { 0x1.5ee2a2eb5a5c4p+53, "1.2345678901234568e+16" },
    { 0x1.0000000000000p+52, "4503599627370496.0" },
    { 0x1.0000000000000p+53, "9007199254740992.0" },
    { 0x1.0000000000001p+53, "9007199254740994.0" },
    { 0x1.0000000000000p+54, "1.8014398509481984e+16" },
    { 0x1.0000000000000p+63, "9.223372036854776e+18" },
    { 0x1.0000000000000p+64, "1.8446744073709552e+19" },
    { 0x1.0f0cf064dd592p+73, "1e+22" },
    { 0x1.52d02c7e14af6p+76, "1e+23" },
    { 0x1.fffffffffffffp+1023, "1.7976931348623157e+308" },
    { -0x1.fffffffffffffp+1023, "-1.7976931348623157e+308" },
    { 0x0.0000000000001p-1022, "5e-324" },
    { -0x0.0000000000001p-1022, "-5e-324" },
    { 0x1.0000000000000p-1022, "2.2250738585072014e-308" },
    { 0x0.fffffffffffffp-1022, "2.225073858507201e-308" },
    { 0x1.56e1fc2f8f359p-997, "1e-300" },
    { 0x0.0000000002710p-1022, "4.9407e-320" },
    { 0x1.0000000000000p-1, "0.5" },
    { 0x1.0000000000000p-2, "0.25" },
    { 0x1.0000000000000p-3, "0.125" },
    { 0x1.199999999999ap+0, "1.1" },
    { 0x1.1eb851eb851ecp+0, "1.12" },
    { 0x1.921f9f01b866ep+1, "3.14159" },
    { 0x1.5bf0a8b145769p+1, "2.718281828459045" },
    { 0x1.249ad2594c37dp+332, "1e+100" },
    { 0x1.bff2ee48e0530p-333, "1e-100" },
    { 0x1.0624dd2f1a9fcp-10, "0.001" },
    { 0x1.47ae147ae147bp-7, "0.01" },
    { 0x1.0000000000000p+31, "2147483648.0" },
    { 0x1.fffffffe00000p+31, "4294967295.0" },
    { 0x1.0000000080000p+32, "4294967296.5" },
    { 0x1.ad7f29abcaf48p-24, "1e-07" },
    { 0x1.6b082c2148b8ep-60, "1.23e-18" },
    { 0x1.80d43de9cc603p-31, "7e-10" },
    { 0x1.0000000000000p+16, "65536.0" },
    { 0x1.0000000000001p+0, "1.0000000000000002" },
    { 0x1.fffffffffffffp-1, "0.9999999999999999" },
    { 0x1.3333333333334p-2, "0.30000000000000004" },
    { 0x1.9200000000000p+6, "100.5" },
    { 0x1.a36e2eb1c432dp-15, "5e-05" },
    { 0x1.81cd6c8b43958p+13, "12345.678" },
    { -0x1.a36e2eb1c432dp-14, "-0.0001" },
    { -0x1.4f8b588e368f1p-17, "-1e-05" },
    { -0x1.1c37937e08000p+53, "-1e+16" },
    { 0x1.f188a424e617bp+167, "3.6357319851742104e+50" },
    { -0x1.79f49af6d114cp+654, "-1.1036156654363892e+197" },
    { -0x1.02d42af1ffe0dp+214, "-2.661899609617116e+64" },
    { -0x1.6e4b9d96e182dp+574, "-8.847263843174408e+172" },
    { -0x1.a1c0d2f8b9e9dp-401, "-3.1597416776634037e-121" },
    { -0x1.b230f3b05e392p-343, "-9.465696106615338e-104" },
    { -0x1.5eb9025ac45a0p+489, "-2.189736111737394e+147" },
    { -0x1.5c4c839a44721p-446, "-7.487451984146348e-135" },
    { 0x1.7c0fcbbe8f88dp-256, "1.2821394239674426e-77" },
    { 0x1.1b5a22155a41cp-733, "2.449625091998882e-221" },
    { -0x1.5bbac88043e5fp+393, "-2.7402489433785077e+118" },
    { -0x1.4256e36c2a4c7p-21, "-6.004039341439814e-07" },
    { 0x1.c5fed4b6ea010p-901, "1.0490240035836884e-271" },
    { 0x1.4fa816e7c0c6ap-506, "6.258603219496475e-153" },
    { -0x1.529cad670a838p-269, "-1.3944199025055022e-81" },
    { -0x1.d5ec09bc03e20p+1016, "-1.2890252618876609e+306" },
    { -0x1.39eca03b1d74bp+996, "-8.212221943600028e+299" },
    { -0x1.a0625469d3e78p+346, "-2.331485249811442e+104" },
    { 0x1.f54df258ececbp-676, "6.245749342273539e-204" },
    { -0x1.ac8b4df0c841fp+181, "-5.130796962834383e+54" },
    { -0x1.b0753cf4b1858p+567, "-8.160400482479523e+170" },
    { 0x1.ff218ce5915e6p+51, "4495956316556019.0" },
    { 0x1.90dfbd38cadcdp+824, "1.7517992289122629e+248" },
    { 0x1.fd73dbea7f239p+765, "3.8619840767974244e+230" },
    { 0x1.6bd8ff306dc01p-452, "1.2221416968005824e-136" },
    { -0x1.409f0cb348bfbp+521, "-8.597657283218367e+156" },
    { 0x1.196f741b79d35p+434, "4.877045678240126e+130" },
    { 0x1.93fb8d9959a62p-65, "4.277332465037243e-20" },
    { -0x1.31bed7c9df940p+608, "-1.268695630089696e+183" },
    { -0x1.950a5c147eea8p-820, "-2.2628825107734373e-247" },
    { -0x1.e7196906b630cp+948, "-4.527030212354042e+285" },
    { -0x1.4da1c6df8ccf6p-324, "-3.8133710168041355e-98" },
    { -0x1.d37395d3c6201p+568, "-1.764144415040706e+171" },
    { -0x1.e37286e08d514p-456, "-1.0149186062390985e-137" },
    { -0x1.e99ae5052aa32p-388, "-3.033664936769795e-117" },
    { 0x1.218431e0b4ee5p+394, "4.563010575221831e+118" },
    { -0x1.ca1bed1d42a63p-636, "-6.275548621082834e-192" },
    { -0x1.fb787cc5aad8fp-476, "-1.0159984174181199e-143" },
    { 0x1.cbf26fc559a25p+53, "1.618294702205857e+16" },
    { 0x1.8dd98b0e04e90p+813, "8.489177799052937e+244" },
    { 0x0.0002000000000p-1022, "6.7903865311e-313" },
    { 0x1.0000000000000p-1000, "9.332636185032189e-302" },
    { 0x1.0000000000000p-963, "1.2826677504057426e-290" },
    { 0x1.0000000000000p-926, "1.7628851326804976e-279" },
    { 0x1.0000000000000p-889, "2.4228908772695546e-268" },
    { 0x1.0000000000000p-852, "3.329995865487836e-257" },
    { 0x1.0000000000000p-815, "4.5767114681873503e-246" },
    { 0x1.0000000000000p-778, "6.290184345309701e-235" },
    { 0x1.0000000000000p-741, "8.645163535653227e-224" },
    { 0x1.0000000000000p-704, "1.188182228934475e-212" },
    { 0x1.0000000000000p-667, "1.6330252207878255e-201" },
    { 0x1.0000000000000p-630, "2.2444127733846047e-190" },
    { 0x1.0000000000000p-593, "3.084697427331692e-179" },
    { 0x1.0000000000000p-556, "4.239575861902385e-168" },
    { 0x1.0000000000000p-519, "5.826828696250162e-157" },
    { 0x1.0000000000000p-482, "8.008332380732404e-146" },
    { 0x1.0000000000000p-445, "1.1006568214637918e-134" },
    { 0x1.0000000000000p-408, "1.512731216738015e-123" },
    { 0x1.0000000000000p-371, "2.07908195312898e-112" },
    { 0x1.0000000000000p-334, "2.8574684782056875e-101" },
    { 0x1.0000000000000p-297, "3.9272747722381812e-90" },
    { 0x1.0000000000000p-260, "5.397605346934028e-79" },
    { 0x1.0000000000000p-223, "7.418412301374843e-68" },
    { 0x1.0000000000000p-186, "1.0195788231247695e-56" },
    { 0x1.0000000000000p-149, "1.401298464324817e-45" },
    { 0x1.0000000000000p-112, "1.925929944387236e-34" },
    { 0x1.0000000000000p-75, "2.6469779601696886e-23" },
    { 0x1.0000000000000p-38, "3.637978807091713e-12" },
    { 0x1.0000000000000p+36, "68719476736.0" },
    { 0x1.0000000000000p+73, "9.44473296573929e+21" },
    { 0x1.0000000000000p+110, "1.298074214633707e+33" },
    { 0x1.0000000000000p+147, "1.78405961588245e+44" },
    { 0x1.0000000000000p+184, "2.4519928653854222e+55" },
    { 0x1.0000000000000p+221, "3.36999333339383e+66" },
    { 0x1.0000000000000p+258, "4.631683569492648e+77" },
    { 0x1.0000000000000p+295, "6.365737426045269e+88" },
    { 0x1.0000000000000p+332, "8.749002899132048e+99" },
    { 0x1.0000000000000p+369, "1.2024538023802026e+111" },
    { 0x1.0000000000000p+406, "1.6526399219756215e+122" },
    { 0x1.0000000000000p+443, "2.2713710134237715e+133" },
    { 0x1.0000000000000p+480, "3.1217485503159922e+144" },
    { 0x1.0000000000000p+517, "4.290498537581631e+155" },
    { 0x1.0000000000000p+554, "5.896816288783659e+166" },
    { 0x1.0000000000000p+591, "8.10452259547069e+177" },
    { 0x1.0000000000000p+628, "1.1138771039116688e+189" },
    { 0x1.0000000000000p+665, "1.5309010345804195e+200" },
    { 0x1.0000000000000p+702, "2.1040543606193494e+211" },
    { 0x1.0000000000000p+739, "2.891790293717215e+222" },
    { 0x1.0000000000000p+776, "3.974446316289815e+233" },
    { 0x1.0000000000000p+813, "5.462437423415177e+244" },
    { 0x1.0000000000000p+850, "7.5075168288047e+255" },
    { 0x1.0000000000000p+887, "1.0318252561243462e+267" },
    { 0x1.0000000000000p+924, "1.418129833677085e+278" },
    { 0x1.0000000000000p+961, "1.94906280228e+289" },
    { 0x1.0000000000000p+998, "2.6787715179656683e+300" },
};

/* json.dumps(s) by /usr/bin/python3 */
static const struct {
    const char *in, *out;
} json_strs[] = {
    { "plain", "\"plain\"" },
    { "caf\xc3\xa9 \xe2\x98\x83", "\"caf\\u00e9 \\u2603\"" },
    { "q\"b\\s/", "\"q\\\"b\\\\s/\"" },
    { "\x09\x0a\x0d\x08\x0c\x01\x1f\x7f",
      "\"\\t\\n\\r\\b\\f\\u0001\\u001f\\u007f\"" },
    { "\xf0\x9f\x98\x80", "\"\\ud83d\\ude00\"" },
    { "", "\"\"" },
};

/* json.loads(s) by /usr/bin/python3: str(JSONDecodeError), NULL when
 * it reads s */
static const struct {
    const char *in, *err;
} json_errs[] = {
    { "", "Expecting value: line 1 column 1 (char 0)" },
    { "{\"a\": 1,", "Expecting property name enclosed in double quotes: line 1 "
                    "column 9 (char 8)" },
    { "{\"a\" 1}", "Expecting ':' delimiter: line 1 column 6 (char 5)" },
    { "[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)" },
    { "\"abc", "Unterminated string starting at: line 1 column 1 (char 0)" },
    { "\"a\\x\"", "Invalid \\escape: line 1 column 3 (char 2)" },
    { "\"a\\u12\"", "Invalid \\uXXXX escape: line 1 column 4 (char 3)" },
    { "{\"a\": 1} x", "Extra data: line 1 column 10 (char 9)" },
    { "\x0a\x0a  {\"a\": ]", "Expecting value: line 3 column 9 (char 10)" },
    { "{\"\xc3\xa9\": x}", "Expecting value: line 1 column 7 (char 6)" },
    { "\"\\ud800\\uzzzz\"",
      "Invalid \\uXXXX escape: line 1 column 9 (char 8)" },
    { "01", "Extra data: line 1 column 2 (char 1)" },
    { "{\"a\": 1}", NULL },
    { "NaN", NULL },
};

static void run_float_repr(void)
{
    char buf[PL_PY_FLOAT_REPR_SIZE];
    apr_size_t i, n;

    for (i = 0; i < sizeof(floats) / sizeof(floats[0]); i++) {
        n = pl_py_float_repr(buf, floats[i].d);
        TAP_IS_STR(buf, floats[i].repr, "repr(float) %s", floats[i].repr);
        TAP_IS_INT(n, strlen(floats[i].repr), "length of %s", floats[i].repr);
    }
}

static void run_str(apr_pool_t *p)
{
    apr_uint32_t cp;

    /* one printable table for every repr: U+200B (a format character)
     * and U+2028 are escaped, letters of any script are not */
    TAP_IS_STR(pl_py_repr(p,
                          "a\xe2\x80\x8b"
                          "b",
                          0),
               "'a\\u200bb'", "repr escapes U+200B");
    TAP_IS_STR(pl_py_repr(p, "\xe2\x80\xa8", 0), "'\\u2028'",
               "repr escapes U+2028");
    TAP_IS_STR(pl_py_repr(p, "\xe4\xb8\xad\xf0\x9f\x98\x80", 0),
               "'\xe4\xb8\xad\xf0\x9f\x98\x80'", "repr keeps CJK and emoji");
    TAP_IS_STR(pl_py_repr(p, "\xf3\xa0\x80\x81", 0), "'\\U000e0001'",
               "repr escapes a tag character");

    /* raw bytes: surrogateescape; JSON text: surrogates kept, bytes shown */
    TAP_IS_STR(pl_py_repr(p, "\xed\xa0\x80", 0), "'\\udced\\udca0\\udc80'",
               "raw encoded surrogate: three undecodable bytes");
    TAP_IS_STR(pl_py_repr_n(p, "\xed\xa0\x80", 3,
                            PL_PY_U8_SURROGATES | PL_PY_REPR_BYTES),
               "'\\ud800'", "JSON text: a lone surrogate");
    TAP_IS_STR(
        pl_py_repr_n(p, "a\0\xff", 3, PL_PY_U8_SURROGATES | PL_PY_REPR_BYTES),
        "'a\\x00\\xff'", "JSON text: NUL and a stray byte");

    TAP_IS_INT(pl_py_len("a\xc3\xa9\xf0\x9f\x98\x80", 7, 0), 3,
               "len() counts code points");
    TAP_IS_INT(pl_py_len("\xff\xc3", 2, 0), 2,
               "len() counts each undecodable byte");
    TAP_IS_INT(pl_py_u8_decode("\xc3\xa9", 1, 0, &cp), 1,
               "a sequence cut short is one byte");
    TAP_IS_INT(cp, 0xdcc3, "... its surrogateescape character");
}

static void run_json(apr_pool_t *p)
{
    apr_size_t i, len;

    for (i = 0; i < sizeof(json_strs) / sizeof(json_strs[0]); i++) {
        const char *got = pl_py_json_str(p, json_strs[i].in,
                                         strlen(json_strs[i].in), &len);

        TAP_IS_STR(got, json_strs[i].out, "json.dumps %s", json_strs[i].out);
        TAP_IS_INT(len, strlen(json_strs[i].out), "... its length");
    }
    for (i = 0; i < sizeof(json_errs) / sizeof(json_errs[0]); i++) {
        TAP_IS_STR(
            pl_py_json_error(p, json_errs[i].in, strlen(json_errs[i].in)),
            json_errs[i].err, "json.loads %s", json_errs[i].in);
    }
}

/* bytes.decode('utf-8')'s errors, as Python 3.11 words them (upstream's
 * "Malformed JSON: ..." for a body that is no UTF-8) */
static const struct {
    const char *in;
    apr_size_t n;
    const char *err; /* NULL: valid */
} utf8_errs[] = {
    { "ok \xc3\xa9 \xf0\x9f\x98\x80 \0", 15, NULL },
    { "{\"name\": \"bad\xed\xa0\x80name\"}", 22,
      "'utf-8' codec can't decode byte 0xed in position 13: invalid "
      "continuation byte" },
    { "{\"name\": \"bad\xc0\xafname\"}", 21,
      "'utf-8' codec can't decode byte 0xc0 in position 13: invalid start "
      "byte" },
    { "ab\xe2\x82", 4,
      "'utf-8' codec can't decode bytes in position 2-3: unexpected end of "
      "data" },
    { "ab\xe2\x82"
      "A",
      5,
      "'utf-8' codec can't decode bytes in position 2-3: invalid "
      "continuation byte" },
    { "ab\xe2", 3,
      "'utf-8' codec can't decode byte 0xe2 in position 2: unexpected end "
      "of data" },
    { "\xf0\x9f\x98"
      "A",
      4,
      "'utf-8' codec can't decode bytes in position 0-2: invalid "
      "continuation byte" },
    { "\xf0\x8f\xbf\xbf", 4,
      "'utf-8' codec can't decode byte 0xf0 in position 0: invalid "
      "continuation byte" },
    { "\xf4\x90\x80\x80", 4,
      "'utf-8' codec can't decode byte 0xf4 in position 0: invalid "
      "continuation byte" },
    { "\xe0\x80\xaf", 3,
      "'utf-8' codec can't decode byte 0xe0 in position 0: invalid "
      "continuation byte" },
    { "\xff", 1,
      "'utf-8' codec can't decode byte 0xff in position 0: invalid start "
      "byte" },
    { "\xed\x9f\xbf\xed\xbf\xbf", 6,
      "'utf-8' codec can't decode byte 0xed in position 3: invalid "
      "continuation byte" },
    { "\xf4\x8f\xbf", 3,
      "'utf-8' codec can't decode bytes in position 0-2: unexpected end of "
      "data" },
};

static void run_utf8(apr_pool_t *p)
{
    apr_size_t i;

    for (i = 0; i < sizeof(utf8_errs) / sizeof(utf8_errs[0]); i++) {
        const char *got = pl_py_utf8_error(p, utf8_errs[i].in, utf8_errs[i].n);

        if (utf8_errs[i].err == NULL) {
            TAP_OK(got == NULL, "decode: case %zu is UTF-8 (%s)", i,
                   got ? got : "");
        }
        else {
            TAP_IS_STR(got, utf8_errs[i].err, "decode: case %zu", i);
        }
    }
}

/* A repr cut at a bound costs the bound, whatever the string's size. */
static void run_repr_cut(apr_pool_t *p)
{
    apr_size_t n = 10 * 1024 * 1024;
    char *big = apr_palloc(p, n);
    const char *r;
    int cut = 0;

    TAP_IS_STR(pl_py_repr_cut(p, "abc", 3, 0, 5, &cut), "'abc'",
               "repr_cut: a repr that fits is whole");
    TAP_IS_INT(cut, 0, "... and not cut");
    TAP_IS_STR(pl_py_repr_cut(p, "abcd", 4, 0, 5, &cut), "'abc",
               "repr_cut: cut before the closing quote would not fit");
    TAP_IS_INT(cut, 1, "... and says so");
    TAP_IS_STR(pl_py_repr_cut(p, "ab'\"\xc3\xa9", 6, 0, 6, &cut), "'ab\\'",
               "repr_cut: the quote is the whole string's");
    TAP_IS_STR(pl_py_repr_cut(p, "a\xc3\xa9\xc3\xa9", 5, 0, 5, &cut),
               "'a\xc3\xa9", "repr_cut: never inside a character");
    TAP_IS_STR(pl_py_repr_cut(p, "\x01\x02", 2, 0, 6, &cut), "'\\x01",
               "repr_cut: never inside an escape");
    memset(big, 'x', n);
    r = pl_py_repr_cut(p, big, n, 0, 1024, &cut);
    /* the quote and 1022 x: a 1023rd x would leave no room to close */
    TAP_IS_INT(strlen(r), 1023, "repr_cut: 10 MB cut within 1024 bytes");
    TAP_IS_INT(cut, 1, "... and cut");
}

int main(void)
{
    apr_pool_t *p;

    apr_initialize();
    apr_pool_create(&p, NULL);
    run_float_repr();
    run_str(p);
    run_json(p);
    run_utf8(p);
    run_repr_cut(p);
    apr_pool_destroy(p);
    apr_terminate();
    return tap_done();
}
