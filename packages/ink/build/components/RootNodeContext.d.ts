import { type DOMElement } from '../dom.js';
declare const RootNodeContext: import("react").Context<DOMElement | undefined>;
export default RootNodeContext;
