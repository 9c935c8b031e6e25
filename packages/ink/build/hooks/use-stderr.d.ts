/**
A React hook that returns the stderr stream.
*/
export default function useStderr(): import("../components/StderrContext.js").Props;
