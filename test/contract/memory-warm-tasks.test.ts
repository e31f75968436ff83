import { MemoryWarmTasks } from '../support/memory-warm-tasks';
import { warmTaskStoreContract } from './warm-task-store.contract';

// The test double unit tests stand in for the DynamoDB store with: held to the same contract.
warmTaskStoreContract('MemoryWarmTasks', () => {
  const store = new MemoryWarmTasks();
  return { store, another: () => store };
});
