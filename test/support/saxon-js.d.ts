/**
 * The part of SaxonJS 2 (npm `saxon-js`, which ships no types) that test/support/pint-ae.ts uses: XPath 3.1
 * evaluated in process, `fn:transform` included (SaxonJS compiles a stylesheet given as text in memory).
 */
declare module 'saxon-js' {
  type XPathOptions = {
    params?: Record<string, unknown>;
    namespaceContext?: Record<string, string>;
    resultForm?: 'default' | 'array' | 'iterator' | 'xdm';
  };
  const SaxonJS: {
    XPath: { evaluate(expression: string, contextItem: unknown, options?: XPathOptions): unknown };
    getProcessorInfo(): { productVersion: string };
  };
  export default SaxonJS;
}
