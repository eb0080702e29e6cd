export function double(n: number): number {
  return n * 2;
}
