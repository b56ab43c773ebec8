/**
 * plain_acl.yml as RocketMQ writes it: parsed into checked data (numbers that YAML would misread are
 * refused, unknown keys named), compiled with Java's checks, and written back unchanged in meaning.
 */
import { describe, expect, test } from "bun:test";
import { compileAcl } from "../../src/acl/acl-snapshot.ts";
import { Permission } from "../../src/acl/permission.ts";
import { formatPlainAcl, parsePlainAcl } from "../../src/acl/plain-acl-file.ts";
import { SAMPLE_ACL } from "./support.ts";

describe("reading plain_acl.yml", () => {
  test("RocketMQ's sample file reads as Java reads it (secretKey 12345678 is text)", () => {
    expect(parsePlainAcl(SAMPLE_ACL)).toEqual({
      globalWhiteRemoteAddresses: ["10.10.103.*", "192.168.0.*"],
      accounts: [
        {
          accessKey: "RocketMQ",
          secretKey: "12345678",
          admin: false,
          defaultTopicPerm: "DENY",
          defaultGroupPerm: "SUB",
          topicPerms: ["topicA=DENY", "topicB=PUB|SUB", "topicC=SUB"],
          groupPerms: ["groupA=DENY", "groupB=PUB|SUB", "groupC=SUB"],
        },
        { accessKey: "rocketmq2", secretKey: "12345678", whiteRemoteAddress: "192.168.1.*", admin: true },
      ],
      dataVersion: [],
    });
  });

  test("an empty file, or one of comments, is an empty ACL", () => {
    const empty = { globalWhiteRemoteAddresses: [], accounts: [], dataVersion: [] };
    expect(parsePlainAcl("")).toEqual(empty);
    expect(parsePlainAcl("# nothing yet\n")).toEqual(empty);
  });

  test("what cannot be read is refused, naming the place", () => {
    const refusals: [string, string][] = [
      ["accounts:\n  - accessKey: RocketMQ\n    secretkey: x\n", "accounts[0]: unknown key 'secretkey'"],
      [
        "accounts:\n  - accessKey: RocketMQ\n    secretKey: 0123456789\n",
        "accounts[0].secretKey: YAML reads this as the number 123456789; quote it",
      ],
      ["accounts:\n  - accessKey: RocketMQ\n    secretKey: 1e10\n", "as the number 10000000000; quote it"],
      ["accounts: [a, b", "not valid YAML"],
      ["globalWhiteRemoteAddresses: 10.0.0.1\n", "globalWhiteRemoteAddresses: expected a list"],
      ["accounts:\n  - accessKey: RocketMQ\n    admin: maybe\n", "accounts[0].admin: expected true or false"],
      ["- a\n", "the file: expected a mapping"],
    ];
    for (const [yaml, message] of refusals) expect(() => parsePlainAcl(yaml)).toThrow(message);
  });

  test("written and read back, the data is the same", () => {
    const data = parsePlainAcl(SAMPLE_ACL);
    data.dataVersion = [{ timestamp: 1_700_000_000_000, counter: 3 }];
    expect(parsePlainAcl(formatPlainAcl(data))).toEqual(data);
  });
});

describe("compiling the ACL", () => {
  test("group permissions live under the retry topic; unknown or absent permissions are DENY", () => {
    const acl = compileAcl(
      parsePlainAcl(
        "accounts:\n  - accessKey: account1\n    secretKey: secret12\n    topicPerms: [t1=PUB, t2=SUB|PUB, t3=ALL]\n    groupPerms: [g1=SUB]\n",
      ),
    );
    const account = acl.accounts.get("account1")!;
    expect([...account.perms]).toEqual([
      ["%RETRY%g1", Permission.SUB],
      ["t1", Permission.PUB],
      ["t2", Permission.PUB | Permission.SUB],
      ["t3", Permission.DENY],
    ]);
    expect([account.defaultTopicPerm, account.defaultGroupPerm, account.admin]).toEqual([
      Permission.DENY,
      Permission.DENY,
      false,
    ]);
  });

  test("Java's checks: keys longer than 6, name=perm lines, usable addresses", () => {
    const compile = (account: string) => () => compileAcl(parsePlainAcl(`accounts:\n  - ${account}\n`));
    expect(compile("{accessKey: short, secretKey: secret12}")).toThrow(
      "accounts[0]: The accessKey=short and secretKey=*** cannot be null and length should longer than 6",
    );
    expect(compile("{accessKey: account1}")).toThrow("secretKey=null cannot be null");
    expect(compile("{accessKey: account1, secretKey: secret12, topicPerms: [t1]}")).toThrow(
      "accounts[0]: Parse resource permission failed for topic:t1",
    );
    expect(compile("{accessKey: account1, secretKey: secret12, whiteRemoteAddress: 300.1.1.1}")).toThrow(
      "accounts[0]: NetAddress examine Exception netAddress is 300.1.1.1",
    );
  });

  test("a repeated accessKey: the first account counts and a warning says so", () => {
    const acl = compileAcl(
      parsePlainAcl(
        "accounts:\n  - {accessKey: account1, secretKey: secret11}\n  - {accessKey: account1, secretKey: secret22}\n",
      ),
    );
    expect(acl.accounts.get("account1")?.secretKey).toBe("secret11");
    expect(acl.warnings).toEqual(["The accessKey account1 is repeated; accounts[1] is ignored"]);
  });
});
