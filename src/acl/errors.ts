/**
 * The two ways ACL fails: a request refused (AclDenied, answered NO_PERMISSION with Java's
 * AclException message) and an ACL file or update that does not hold together (AclConfigError).
 */
import { RemotingError } from "../remoting/errors.ts";
import { ResponseCode } from "../remoting/response-code.ts";

/**
 * A refused request. Java's broker lets its AclException escape the RPC hook, which answers
 * SYSTEM_ERROR with the exception's class name and a stack frame in the remark; its 5.x proxy
 * answers NO_PERMISSION with the bare message. We answer as the proxy does: clients retry both
 * codes alike, and the bare message is what an operator needs.
 */
export class AclDenied extends RemotingError {
  override name = "AclDenied";
  constructor(message: string) {
    super(ResponseCode.NO_PERMISSION, message);
  }
}

/** A plain_acl.yml (or an update to it) that cannot be used; the message names what and where. */
export class AclConfigError extends Error {
  override name = "AclConfigError";
}
