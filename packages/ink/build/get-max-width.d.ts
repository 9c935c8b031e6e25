import { type Node as YogaNode } from 'yoga-layout';
declare const getMaxWidth: (yogaNode: YogaNode) => number;
export default getMaxWidth;
