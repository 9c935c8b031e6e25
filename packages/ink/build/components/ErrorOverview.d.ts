import React from 'react';
type Props = {
    readonly error: Error;
};
export default function ErrorOverview({ error }: Props): React.JSX.Element;
export {};
