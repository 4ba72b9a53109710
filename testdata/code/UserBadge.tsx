import React from "react";

interface UserBadgeProps {
  name: string;
  admin?: boolean;
}

/** UserBadge shows a user's name, marked when they are an admin. */
export function UserBadge({ name, admin = false }: UserBadgeProps) {
  return (
    <span className={admin ? "badge badge-admin" : "badge"}>
      {name}
    </span>
  );
}

export default UserBadge;
