import { PlotList } from '../components/PlotList';

export default function HomePage() {
  return (
    <main>
      <h1>Available plots</h1>
      <PlotList />
    </main>
  );
}
