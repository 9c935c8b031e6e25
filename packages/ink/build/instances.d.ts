import type Ink from './ink.js';
declare const instances: WeakMap<NodeJS.WritableStream, Ink>;
export default instances;
