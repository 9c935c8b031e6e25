export declare const AccessibilityContext: import("react").Context<{
    isScreenReaderEnabled: boolean;
}>;
