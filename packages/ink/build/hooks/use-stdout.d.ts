/**
A React hook that returns the stdout stream where Ink renders your app.
*/
export default function useStdout(): import("../components/StdoutContext.js").Props;
