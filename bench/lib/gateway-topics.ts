/** Setting up a gateway benchmark over HTTP: wait until it is ready, create its topics. */

/** Resolves once the gateway's /readyz answers 200. */
export async function waitGatewayReady(gw: string): Promise<void> {
  for (;;) {
    const r = await fetch(`${gw}/readyz`).catch(() => null);
    if (r?.ok) return;
    await Bun.sleep(20);
  }
}

/** Creates `topic` with 8 queues through the gateway and waits until its route is served. */
export async function createGatewayTopic(gw: string, topic: string): Promise<void> {
  const created = await fetch(`${gw}/v1/topics`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ topic, queues: 8 }),
  });
  if (created.status !== 201) throw new Error(`topic not created: ${created.status} ${await created.text()}`);
  while (!(await fetch(`${gw}/v1/topics/${topic}/route`)).ok) await Bun.sleep(20);
}
