/** `page.total`: how many results match; `capped` when the service stopped counting (10 000+). */
export interface Total {
  count: number;
  capped: boolean;
}
