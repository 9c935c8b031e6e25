/**
A React hook that returns app lifecycle methods like `exit()` and `waitUntilRenderFlush()`.
*/
export default function useApp(): import("../components/AppContext.js").Props;
