declare const sanitizeAnsi: (text: string) => string;
export default sanitizeAnsi;
