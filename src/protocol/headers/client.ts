/** Client-management headers (spec broker §8.5-8.8): unregister, consumer list, ids-changed notice. */
import { defineHeader, field } from "../../remoting/custom-header.ts";

export const UnregisterClientRequestHeader = defineHeader({
  clientID: field.string(),
  producerGroup: field.string().optional(),
  consumerGroup: field.string().optional(),
});

export const GetConsumerListByGroupRequestHeader = defineHeader({ consumerGroup: field.string() });

export const NotifyConsumerIdsChangedRequestHeader = defineHeader({ consumerGroup: field.string() });
