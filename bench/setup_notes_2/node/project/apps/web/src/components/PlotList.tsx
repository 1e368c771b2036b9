'use client';

import { useQuery } from '@tanstack/react-query';
import { plotSchema } from '@plotkeeper/shared';
import { z } from 'zod';

const apiUrl = process.env.NEXT_PUBLIC_API_URL ?? 'http://localhost:4000';

export function PlotList() {
  const { data, isLoading } = useQuery({
    queryKey: ['plots'],
    queryFn: async () => {
      const res = await fetch(`${apiUrl}/plots`);
      return z.array(plotSchema).parse(await res.json());
    },
  });

  if (isLoading) return <p>Loading...</p>;
  return (
    <ul>
      {data?.map((plot) => (
        <li key={plot.id}>
          {plot.label} ({plot.areaSqm} m²)
        </li>
      ))}
    </ul>
  );
}
