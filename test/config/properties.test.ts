import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ConfigError } from "../../src/config/errors.ts";
import {
  escapeKey,
  escapeValue,
  parseProperties,
  parsePropertyEntries,
  stringifyProperties,
} from "../../src/config/properties.ts";

const parse = (text: string) => Object.fromEntries(parseProperties(text));

describe("parseProperties", () => {
  test("key=value, key: value and key value are all one entry", () => {
    expect(parse("a=1\nb: 2\nc 3\nd\t4\ne\f5")).toEqual({ a: "1", b: "2", c: "3", d: "4", e: "5" });
  });

  test("blanks around the separator are dropped, trailing blanks of the value are kept", () => {
    expect(parse("  a   =   1  \n\tb :\t2\nc  =  = 3")).toEqual({ a: "1  ", b: "2", c: "= 3" });
  });

  test("# and ! start comments only at the start of a line", () => {
    expect(parse("# comment\n  ! another\nurl=http://x/#frag\nbang=!yes")).toEqual({
      url: "http://x/#frag",
      bang: "!yes",
    });
  });

  test("blank lines and whitespace-only lines are skipped; a key alone has an empty value", () => {
    expect(parse("\n   \n\t\nlonely\nempty=\n")).toEqual({ lonely: "", empty: "" });
  });

  test("\\r\\n, \\r and \\n all end lines", () => {
    expect(parse("a=1\r\nb=2\rc=3\nd=4")).toEqual({ a: "1", b: "2", c: "3", d: "4" });
  });

  test("escapes \\t \\n \\r \\f \\\\ and any other escaped character stand for themselves", () => {
    expect(parse("v=a\\tb\\nc\\rd\\fe\\\\f\\qg\\#h")).toEqual({ v: "a\tb\nc\rd\fe\\fqg#h" });
  });

  test("unicode escapes, including a surrogate pair, decode to the characters", () => {
    expect(parse("name=caf\\u00e9 \\uD83D\\uDE00\nk\\u0041y=1")).toEqual({ name: "café 😀", kAy: "1" });
  });

  test("escaped =, : and space belong to the key", () => {
    expect(parse("a\\=b=1\nc\\:d:2\ne\\ f 3\n\\ lead=4")).toEqual({
      "a=b": "1",
      "c:d": "2",
      "e f": "3",
      " lead": "4",
    });
  });

  test("an escaped leading blank in the value is kept", () => {
    expect(parse("k=\\  two")).toEqual({ k: "  two" });
  });

  test("a backslash continuation joins lines and drops the next line's leading blanks", () => {
    const text = "messageDelayLevel=1s 5s \\\n    10s 30s \\\n\t1m\nnext=x";
    expect(parse(text)).toEqual({ messageDelayLevel: "1s 5s 10s 30s 1m", next: "x" });
  });

  test("a continuation can split the key and the separator", () => {
    expect(parse("lon\\\n  gKey\\\n  = value")).toEqual({ longKey: "value" });
  });

  test("an even number of trailing backslashes is escaped backslashes, not a continuation", () => {
    expect(parse("path=C:\\\\dir\\\\\nnext=1")).toEqual({ path: "C:\\dir\\", next: "1" });
  });

  test("a continued line that looks like a comment is part of the value", () => {
    expect(parse("k=a \\\n  # not a comment")).toEqual({ k: "a # not a comment" });
  });

  test("a comment line ending in a backslash does not continue", () => {
    expect(parse("# comment \\\nk=v")).toEqual({ k: "v" });
  });

  test("a continuation followed by a blank line or the end of the text ends the value", () => {
    expect(parse("a=1\\\n\nb=2\\")).toEqual({ a: "1", b: "2" });
  });

  test("the last duplicate wins and keeps the key's first position", () => {
    expect([...parseProperties("a=1\nb=2\na=3")]).toEqual([
      ["a", "3"],
      ["b", "2"],
    ]);
  });

  test("entries carry the line their logical line starts on", () => {
    expect(parsePropertyEntries("# c\n\na=1\nb=x \\\n  y\nc=3")).toEqual([
      { key: "a", value: "1", line: 3 },
      { key: "b", value: "x y", line: 4 },
      { key: "c", value: "3", line: 6 },
    ]);
  });

  test("a malformed \\u escape is an error naming the file and the physical line", () => {
    const text = "a=1\nb=ok \\\n  bad\\u12G4\n";
    expect(() => parseProperties(text, "broker.conf")).toThrow(ConfigError);
    expect(() => parseProperties(text, "broker.conf")).toThrow(
      'broker.conf:3: malformed \\uXXXX escape "\\u12G4"',
    );
    expect(() => parseProperties("x=\\u12")).toThrow('line 1: malformed \\uXXXX escape "\\u12"');
  });
});

describe("stringifyProperties", () => {
  test("writes comments then key=value lines, escaping only what needs it", () => {
    const text = stringifyProperties(
      [
        ["namesrvAddr", "127.0.0.1:9876;10.0.0.2:9876"],
        ["messageDelayLevel", "1s 5s"],
        ["k y=:#!", "  lead\ttab\\"],
        ["ctl", "\u0001"],
      ],
      ["brokerConfig"],
    );
    expect(text).toEqual(
      "# brokerConfig\n" +
        "namesrvAddr=127.0.0.1:9876;10.0.0.2:9876\n" +
        "messageDelayLevel=1s 5s\n" +
        "k\\ y\\=\\:\\#\\!=\\ \\ lead\\ttab\\\\\n" +
        "ctl=\\u0001\n",
    );
  });

  test("escapeKey and escapeValue protect line breaks", () => {
    expect([escapeKey("a\nb"), escapeValue("c\r\nd")]).toEqual(["a\\nb", "c\\r\\nd"]);
  });

  test("empty input writes nothing", () => {
    expect(stringifyProperties([])).toEqual("");
  });

  test("any entries survive write then parse", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: "binary" }), fc.string({ unit: "binary" })), (dict) => {
        const entries = Object.entries(dict);
        expect([...parseProperties(stringifyProperties(entries))]).toEqual(entries);
      }),
      { numRuns: 500 },
    );
  });
});
