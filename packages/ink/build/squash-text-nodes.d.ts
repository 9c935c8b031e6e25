import { type DOMElement } from './dom.js';
declare const squashTextNodes: (node: DOMElement) => string;
export default squashTextNodes;
