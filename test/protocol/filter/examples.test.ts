/**
 * Every example of spec pop-timer-filter §C.8, with the result the spec gives (verified there
 * against RocketMQ 5.3.3), plus the coercion rules of §C.5. Property values are strings, as the
 * broker supplies them.
 */
import { describe, expect, test } from "bun:test";
import { compileSql92, FilterParseError, lookupIn } from "../../../src/protocol/filter/index.ts";

type Row = [id: number, expression: string, props: Record<string, string>, matches: boolean];

const NONE = {};

const ROWS: Row[] = [
  [1, "a=3 and b<>4 And c>5 AND d<=4", { a: "3", b: "5", c: "6", d: "1" }, true],
  [2, "a=3 and b<>4 And c>5 AND d<=4", { a: "4", b: "5", c: "6", d: "1" }, false],
  [3, "a=3 or b<>4 Or c>5 OR d<=4", { a: "4", b: "4", c: "3", d: "2" }, true],
  [4, "a=3 or b<>4 Or c>5 OR d<=4", { a: "4", b: "4", c: "3", d: "10" }, false],
  [5, "a=3 or b<>4 Or c>5 OR d<=4", { a: "4", b: "5" }, true],
  [6, "a in ('3', '4', '5')", { a: "4" }, true],
  [7, "a in ('3', '4', '5')", { a: "8" }, false],
  [8, "a not in ('3', '4', '5')", { a: "8" }, true],
  [9, "a between 2 and 10", { a: "10" }, true],
  [10, "a between 2 and 10", { a: "11" }, false],
  [11, "a not between 2 and 10", { a: "1" }, true],
  [12, "a not between 2 and 10", { a: "3" }, false],
  [13, "a is null", { abc: "2" }, true],
  [14, "a is not null", { abc: "2" }, false],
  [15, "a is not null and a='hello'", NONE, false],
  [16, "a=TRUE OR b=FALSE", { a: "true", b: "false" }, true],
  [17, "a=TRUE OR b=FALSE", { a: "false", b: "true" }, false],
  [18, "a is null OR a='hello'", NONE, true],
  [19, "a is null OR a='hello'", { a: "abc" }, false],
  [20, "TAGS is not null and TAGS='''''tag'''''", { TAGS: "''tag''" }, true],
  [21, "a > 3.1E10", { a: "3.1415E10" }, true],
  [22, "a > b", { a: "10", b: "20" }, false],
  [22, "a > b", { a: "20", b: "10" }, true],
  [23, "value contains 'x'", { value: "axb" }, true],
  [24, "value not startswith 'ax'", { value: "axb" }, false],
  [25, "value endswith ''", { value: "axb" }, false],
  [26, "value not contains 'x'", NONE, false],
  [27, "'axb' not endswith 'u'", NONE, true],
  [
    28,
    "a not in ('4', '4', '5') and b between 3 and 10 and c not startswith 'axbc'",
    { a: "3", b: "3", c: "axbdc" },
    true,
  ],
  [29, "key is not null and key between 0 and 100", { key: "con" }, false],
  [30, "a<>b", { a: "3.14", b: "3.141" }, true],
  [34, "a <= now", { a: "5", now: "10" }, true],
  [35, "a = 3", { a: "3.0" }, false],
  [36, "a = 3.0", { a: "3" }, true],
  [37, "a = 3", { a: "03" }, true],
  [37, "a = '3'", { a: "03" }, false],
  [38, "a > 5", { a: "6.5" }, false],
  [38, "a > 5.0", { a: "6.5" }, true],
  [40, "a <> 3", NONE, false],
  [41, "a <> 1", { a: "x" }, false],
  [42, "'x' = a", NONE, false],
  [42, "NOT ('x' = a)", NONE, true],
  [43, "a = b", NONE, true],
  [44, "NOT a = 'x'", { a: "x" }, false],
  [45, "NOT (a = 'x')", NONE, false],
  [46, "a", { a: "true" }, false],
  [47, "NOT a", { a: "x" }, true],
  [48, "a = TRUE", { a: "True" }, true],
  [48, "a = TRUE", { a: "yes" }, false],
  [49, "a = 'x' garbage here", { a: "x" }, true],
  [50, "a like 'x%'", { a: "xy" }, false],
  [54, "A = 'x'", { a: "x" }, false],
  [55, "a > 3 AND b = 'x'", { b: "x" }, false],
  [56, "a > 3 OR b = 'x'", { b: "x" }, true],
  [57, "TAGS in ('TagA','TagB') and price > 100", { TAGS: "TagB", price: "150" }, true],
  [58, "a is null", { a: "" }, false],
  [60, "a = 9223372036854775807", { a: "9223372036854775807" }, true],
];

const PARSE_ERRORS: [id: number, expression: string][] = [
  [31, "a between 10 and 0"],
  [32, "a and between 2 and 10"],
  [33, "a > 100000000000000000000000"],
  [39, "a > 0.0"],
  [51, "a = 'x' * junk"],
  [52, 'a = "x"'],
  [52, "a == 'x'"],
  [52, "a != 'x'"],
  [53, "a.b = 'x'"],
  [59, "a IN (1, 2)"],
  // Found against RocketMQ's parser (java-oracle.test.ts): NOT after an operand must start an operator.
  [0, "a NOT x"],
  [0, "TRUE NOT"],
];

describe("spec §C.8 examples", () => {
  for (const [id, expression, props, matches] of ROWS) {
    test(`#${id} ${expression} with ${JSON.stringify(props)} ${matches ? "matches" : "does not match"}`, () => {
      expect(compileSql92(expression).matches(lookupIn(props))).toBe(matches);
    });
  }
  for (const [id, expression] of PARSE_ERRORS) {
    test(`#${id} ${expression} is refused at compile time`, () => {
      expect(() => compileSql92(expression)).toThrow(FilterParseError);
    });
  }
});

describe("spec §C.5 short-circuit and coercion", () => {
  const cases: [string, Record<string, string>, boolean][] = [
    // An exception in a right operand that is never evaluated does no harm.
    ["b = 'x' OR a > 5", { b: "x", a: "abc" }, true],
    ["a > 5 OR b = 'x'", { b: "x", a: "abc" }, false],
    // string vs int32: Integer.valueOf strictness.
    ["a = 3", { a: " 3" }, false],
    ["a = 3", { a: "3 " }, false],
    ["a = 3", { a: "+3" }, true],
    ["a > 2147483647", { a: "2147483648" }, false],
    ["a = 1", { a: "2147483648" }, false],
    // string vs int64.
    ["a = 2147483648", { a: "2147483648" }, true],
    ["a < 2147483648", { a: "9223372036854775808" }, false],
    // string vs double: Double.valueOf leniency.
    ["a = 3.0", { a: " 3 " }, true],
    ["a = 30.0", { a: "3e1" }, true],
    ["a = 3.0", { a: "3.0d" }, true],
    ["a > 1.0", { a: "Infinity" }, true],
    ["a > 1.0", { a: "NaN" }, true],
    ["a < 1.0", { a: "NaN" }, false],
    ["a = 3.0", { a: "" }, false],
    // hex floats as Double.valueOf reads them (values checked against the JDK).
    ["a = 3.0", { a: "0x1.8p1" }, true],
    ["a = 8.0", { a: " 0x1p3f " }, true],
    ["a < 1.0", { a: "0x1p-1075" }, true],
    ["a > 1.0E308", { a: "0x1.fffffffffffff8p1023" }, true],
    ["a = 16.0", { a: "0x10" }, false],
    // int vs long vs double widening.
    ["3 = 3.0", NONE, true],
    ["2147483648 > 3", NONE, true],
    ["-5 < 2", NONE, true],
    ["a = -5", { a: "-5" }, true],
    ["-a = 5", { a: "-5" }, false],
    // boolean literal on the left vs a property string: ClassCastException.
    ["TRUE = a", { a: "true" }, false],
    // a string literal against a boolean literal is compared, never equal unless "true".
    ["'x' = TRUE", NONE, false],
    ["'true' = TRUE", NONE, true],
    // mixtures Java cannot convert compare as "less".
    ["(a = 'x') = 5", { a: "x" }, false],
    // IN is UNKNOWN for an absent property, also negated.
    ["a not in ('x')", NONE, false],
    ["NOT (a not in ('x'))", NONE, false],
    // IS NULL never UNKNOWN.
    ["NOT (a is null)", NONE, false],
    ["TRUE", NONE, true],
    ["FALSE", NONE, false],
    ["NULL", NONE, false],
    // comments and case-insensitive keywords.
    ["a = 'x' /* c */ AnD b Is NoT nUlL -- end\n", { a: "x", b: "y" }, true],
    // a `--` without a line end is two minus signs: `a = --5` means `a = 5`.
    ["a = --5", { a: "5" }, true],
    // tokens after a complete expression are ignored: `007` is `0`.
    ["a = 007", { a: "0" }, true],
    ["a = 5L", { a: "5" }, true],
    ["a not between 10 and 0", { a: "5" }, true],
    // Longest match of an unterminated string: the literal ends at its last closing quote and the
    // unterminated rest is never lexed (found against RocketMQ's parser).
    ["NOT b 'u v '' w", { b: "x" }, true],
  ];
  for (const [expression, props, matches] of cases) {
    test(`${JSON.stringify(expression)} with ${JSON.stringify(props)} ${matches ? "matches" : "does not match"}`, () => {
      expect(compileSql92(expression).matches(lookupIn(props))).toBe(matches);
    });
  }
});

describe("spec §C.4 compile-time checks", () => {
  const cases: [string, string][] = [
    ["a > 'abc'", "java.lang.RuntimeException: Value ''abc'' cannot be compared. (at line 1, column 3)"],
    ["a < TRUE", "java.lang.RuntimeException: Value 'TRUE' cannot be compared. (at line 1, column 3)"],
    ["a < NULL", "java.lang.RuntimeException: Value 'NULL' cannot be compared. (at line 1, column 3)"],
    ["(a = 1) > 3", "java.lang.RuntimeException: Value '(a == 1)' cannot be compared. (at line 1, column 9)"],
    ["a = NULL", "java.lang.RuntimeException: 'NULL' cannot be compared. (at line 1, column 3)"],
    ["TRUE = 'x'", "java.lang.RuntimeException: 'TRUE' cannot be compared with ''x'' (at line 1, column 6)"],
    [
      "5",
      "org.apache.rocketmq.filter.parser.ParseException: Expression will not result in a boolean value: 5 (at line 1, column 1)",
    ],
    [
      "a = 'x' AND 5",
      "org.apache.rocketmq.filter.parser.ParseException: Expression will not result in a boolean value: 5 (at line 1, column 13)",
    ],
    [
      "a BETWEEN 10 AND 0",
      "java.lang.RuntimeException: Illegal values of between, left value(10) must less than or equal to right value(0) (at line 1, column 3)",
    ],
    [
      "a BETWEEN NULL AND 0",
      "java.lang.RuntimeException: Illegal values of between, values can not be null! (at line 1, column 3)",
    ],
    [
      "'y' IN ('y')",
      "java.lang.RuntimeException: Expected a property for In expression, got: 'y' (at line 1, column 5)",
    ],
    ["a > 0.0", "java.lang.RuntimeException: 0.0 is less than 4.9E-324 (at line 1, column 5)"],
    [
      "a > 1e400",
      "java.lang.RuntimeException: 1e400 is greater than 1.7976931348623157E308 (at line 1, column 5)",
    ],
    ["in = 'x'", 'org.apache.rocketmq.filter.parser.ParseException: Encountered "in" at line 1, column 1.'],
    [
      "a = 'x' AND",
      'org.apache.rocketmq.filter.parser.ParseException: Encountered "<EOF>" at line 1, column 11.',
    ],
    [
      "a = 'x\nAND b = \"",
      "org.apache.rocketmq.filter.parser.TokenMgrError: Lexical error at line 2, column 10.",
    ],
    [
      "a = 'x'\nAND b = \"",
      "org.apache.rocketmq.filter.parser.TokenMgrError: Lexical error at line 2, column 10.",
    ],
    [
      "a = 'x'\n\tAND b == 1",
      'org.apache.rocketmq.filter.parser.ParseException: Encountered "=" at line 2, column 16.',
    ],
  ];
  for (const [expression, remark] of cases) {
    test(`${JSON.stringify(expression)} is refused with its position`, () => {
      let err: unknown;
      try {
        compileSql92(expression);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(FilterParseError);
      expect((err as FilterParseError).remark.startsWith(remark)).toBe(true);
    });
  }
});
