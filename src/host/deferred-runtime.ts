// A DynamicRuntime whose implementation is still loading. Lets the host print
// its port before importing a language bridge's heavier modules; every call
// waits for the load, and a failed load fails the calls with its error.
import type { ProviderReference } from "./references/provider-references.js";
import type { Bag, CallInfo, DynamicRuntime, Language, ProviderSource } from "./runtime.js";

export class DeferredRuntime implements DynamicRuntime {
  private readonly ready: Promise<DynamicRuntime>;
  private loaded?: DynamicRuntime;

  constructor(
    readonly language: Language,
    readonly bags: DynamicRuntime["bags"],
    load: () => Promise<DynamicRuntime>,
  ) {
    this.ready = load().then((rt) => {
      if (rt.bags !== bags) throw new Error(`the ${language} runtime takes ${rt.bags} bags, not ${bags}`);
      return (this.loaded = rt);
    });
    this.ready.catch(() => undefined);
  }

  async configure(args: Bag) {
    return (await this.ready).configure(args);
  }
  async check(call: CallInfo, provider: ProviderSource, olds: Bag, news: Bag) {
    return (await this.ready).check(call, provider, olds, news);
  }
  async diff(call: CallInfo, provider: ProviderSource, id: string, olds: Bag, news: Bag) {
    return (await this.ready).diff(call, provider, id, olds, news);
  }
  async create(call: CallInfo, provider: ProviderSource, props: Bag) {
    return (await this.ready).create(call, provider, props);
  }
  async read(call: CallInfo, provider: ProviderSource, id: string, props: Bag) {
    return (await this.ready).read(call, provider, id, props);
  }
  async update(call: CallInfo, provider: ProviderSource, id: string, olds: Bag, news: Bag) {
    return (await this.ready).update(call, provider, id, olds, news);
  }
  async delete(call: CallInfo, provider: ProviderSource, id: string, props: Bag) {
    return (await this.ready).delete(call, provider, id, props);
  }
  isReferenceText(text: string, reference: ProviderReference): boolean {
    // Asked only after a call of this runtime has been answered, so the load is done.
    return this.loaded?.isReferenceText(text, reference) ?? false;
  }
  cancelAll(): void {
    this.loaded?.cancelAll();
  }
  async close(): Promise<void> {
    const rt = await this.ready.catch(() => undefined);
    await rt?.close();
  }
}
