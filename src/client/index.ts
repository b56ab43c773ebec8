/**
 * The native RocketMQ client: producer, push consumer, lite pull consumer, simple (POP) consumer and admin, over one
 * ClientInstance per configuration (spec broker §1, §7-§9; remoting §7).
 */

export {
  type AclVersion,
  aclVersionInfo,
  type ClusterAclVersionInfo,
  deleteAclConfig,
  type PlainAccessConfig,
  updateAclConfig,
  updateGlobalWhiteAddrs,
} from "./acl-admin.ts";
export { Admin, type CreateTopicOptions, createAdmin, type QueueProgress, type QueueStats } from "./admin.ts";
export type { ConsumerConnection, SubscriptionGroupConfig } from "./admin-bodies.ts";
export { type AllocateStrategy, allocateAveragely } from "./allocate.ts";
export { ClientInstance } from "./client-instance.ts";
export { MQClientError } from "./errors.ts";
export {
  createLitePullConsumer,
  LitePullConsumer,
  type LitePullConsumerOptions,
} from "./lite-pull-consumer.ts";
export type { Message, MessageExt } from "./message.ts";
export { userProperties } from "./message.ts";
export type { MessageQueue } from "./message-queue.ts";
export { MessageSelector } from "./message-selector.ts";
export {
  addWritePerm,
  deleteKvConfig,
  getKvConfig,
  namesrvAddrs,
  namesrvConfig,
  putKvConfig,
  updateNamesrvConfig,
  wipeWritePerm,
} from "./namesrv-admin.ts";
export type { ClientOptions } from "./options.ts";
export {
  createProducer,
  type EncodedMessage,
  Producer,
  type ProducerOptions,
  type SendCallback,
  type SendOptions,
} from "./producer.ts";
export {
  createPushConsumer,
  type MessageListener,
  PushConsumer,
  type PushConsumerOptions,
} from "./push-consumer.ts";
export type { QueueSelector } from "./queue-selector.ts";
export type { ConsumeFromWhere, MessageModel } from "./rebalance.ts";
export { ClientErrorCode } from "./request-futures.ts";
export { REPLY_MESSAGE_FLAG, type RequestOptions, replyTopicOf } from "./request-reply.ts";
export type { SendResult, SendStatus } from "./send-request.ts";
export {
  createSimpleConsumer,
  type FilterExpression,
  SimpleConsumer,
  type SimpleConsumerOptions,
  type SimpleMessage,
} from "./simple-consumer.ts";
export {
  createTransactionProducer,
  type LocalTransactionState,
  type TransactionalMessage,
  TransactionProducer,
  type TransactionProducerOptions,
  type TransactionSendResult,
} from "./transaction-producer.ts";
