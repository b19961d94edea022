export function phoneMetadataSource(): string;
