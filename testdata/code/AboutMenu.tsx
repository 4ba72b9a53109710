import { Menu } from "@mantine/core";

// AboutMenu links to the status pages.
export const AboutMenu = () => (
  <Menu>
    <Menu.Item>Status {">"} Runtime & Build Information</Menu.Item>
    <Menu.Item>
      Terms & Conditions
    </Menu.Item>
    <Menu.Item>Tom &amp; Jerry</Menu.Item>
  </Menu>
);

export function Footer({ year }: { year: number }) {
  return <p>{year > 2000 && "Alerts & Silences"} © {year}</p>;
}
